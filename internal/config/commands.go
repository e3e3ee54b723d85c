package config

// Built-in command ids.
const (
	CommandFix     = "fix"
	CommandExplain = "explain"
	CommandAsk     = "ask"
	// CommandRun is a run from the command line (cb-ls run): the
	// instruction is the whole prompt. It is not offered in the editor,
	// but a stored run of it can be continued there.
	CommandRun = "run"
)

// runCommand is CommandRun's definition.
var runCommand = Command{ID: CommandRun, Title: "cb-ls run", Prompt: "${input}"}

// builtinCommands are offered in every project. Their prompts are
// templates like custom commands'; the task's context (file excerpt,
// selection, diagnostics) is appended to every command's prompt.
var builtinCommands = []Command{
	{
		ID: CommandFix, Title: "Agent: Fix This",
		Prompt: "Fix the selected code in ${file}.\n${input}\n" +
			"If diagnostics are listed below, fix their cause; otherwise find and fix the bug in the selection. " +
			"Make the smallest change that fixes it, with edit_file, then say in one or two sentences what was wrong and what you changed.",
	},
	{
		ID: CommandExplain, Title: "Agent: Explain This", ReadOnly: true,
		Prompt: "Explain the selected code in ${file}: what it does, how, and anything surprising or wrong in it. " +
			"Answer only; do not change any file.\n${input}",
	},
	{
		ID: CommandAsk, Title: "Agent: Ask…",
		Prompt: "${input}",
	},
}

// Commands returns the commands users can run: the built-ins, then the
// custom commands of cfg. A custom command never takes a built-in's id
// (commandcheck.go); one that got here by hand is left out.
func Commands(cfg Config) []Command {
	out := append([]Command(nil), builtinCommands...)
	for _, c := range cfg.CustomCommands {
		if isBuiltin(c.ID) {
			continue
		}
		if c.Title == "" {
			c.Title = "Agent: " + c.ID
		}
		out = append(out, c)
	}
	return out
}

// FindCommand returns the command called id in cfg.
func FindCommand(cfg Config, id string) (Command, bool) {
	for _, c := range Commands(cfg) {
		if c.ID == id {
			return c, true
		}
	}
	if id == CommandRun {
		return runCommand, true
	}
	return Command{}, false
}
