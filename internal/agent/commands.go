package agent

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Built-in command ids.
const (
	CommandFix     = "fix"
	CommandExplain = "explain"
	CommandAsk     = "ask"
)

// builtinCommands are offered in every project. Their prompts are
// templates like custom commands'; the task's context (file excerpt,
// selection, diagnostics) is appended to every command's prompt.
var builtinCommands = []Command{
	{
		ID: CommandFix, Title: "Agent: Fix this",
		Prompt: "Fix the selected code in ${file}.\n${input}\n" +
			"If diagnostics are listed below, fix their cause; otherwise find and fix the bug in the selection. " +
			"Make the smallest change that fixes it, with edit_file, then say in one or two sentences what was wrong and what you changed.",
	},
	{
		ID: CommandExplain, Title: "Agent: Explain this", ReadOnly: true,
		Prompt: "Explain the selected code in ${file}: what it does, how, and anything surprising or wrong in it. " +
			"Answer only; do not change any file.\n${input}",
	},
	{
		ID: CommandAsk, Title: "Agent: Ask…",
		Prompt: "${input}",
	},
}

// Commands returns the commands users can run: the built-ins, then the
// custom commands of cfg. A custom command with a built-in's id replaces
// its title and prompt in place.
func Commands(cfg Config) []Command {
	out := append([]Command(nil), builtinCommands...)
next:
	for _, c := range cfg.CustomCommands {
		for i := range out {
			if out[i].ID == c.ID {
				if c.Title == "" {
					c.Title = out[i].Title
				}
				out[i] = c
				continue next
			}
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
	return Command{}, false
}

var templateVar = regexp.MustCompile(`\$\{(\w+)\}`)

// Expand fills cmd's prompt template from task: ${file} (the path,
// relative to workRoot when inside it), ${selection}, ${diagnostics},
// ${language}, ${input}. Unknown variables stay as written. Lines left
// empty by an empty variable are dropped, so optional parts of a
// template need no conditionals.
func Expand(cmd Command, task Task, workRoot string) string {
	vars := map[string]string{
		"file":        displayPath(task.Path, workRoot),
		"selection":   task.Selection,
		"diagnostics": formatDiagnostics(task, workRoot),
		"language":    task.Language,
		"input":       strings.TrimSpace(task.Input),
	}
	var out []string
	for _, line := range strings.Split(cmd.Prompt, "\n") {
		hadVar, hadValue := false, false
		expanded := templateVar.ReplaceAllStringFunc(line, func(m string) string {
			v, ok := vars[m[2:len(m)-1]]
			if !ok {
				return m
			}
			hadVar = true
			hadValue = hadValue || v != ""
			return v
		})
		if hadVar && !hadValue && strings.TrimSpace(expanded) == "" {
			continue // the line held only empty variables
		}
		out = append(out, expanded)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// displayPath shows p relative to root when inside it.
func displayPath(p, root string) string {
	if p == "" {
		return ""
	}
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

func formatDiagnostics(task Task, root string) string {
	var b strings.Builder
	name := displayPath(task.Path, root)
	for _, d := range task.Diagnostics {
		fmt.Fprintf(&b, "- %s:%d", name, d.Line)
		if d.Column > 0 {
			fmt.Fprintf(&b, ":%d", d.Column)
		}
		if d.Severity != "" {
			fmt.Fprintf(&b, " %s", d.Severity)
		}
		switch {
		case d.Source != "" && d.Code != "":
			fmt.Fprintf(&b, " [%s %s]", d.Source, d.Code)
		case d.Source != "":
			fmt.Fprintf(&b, " [%s]", d.Source)
		case d.Code != "":
			fmt.Fprintf(&b, " [%s]", d.Code)
		}
		fmt.Fprintf(&b, ": %s\n", oneLineKeep(d.Message))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// oneLineKeep folds a multi-line message onto one line.
func oneLineKeep(s string) string { return strings.Join(strings.Fields(s), " ") }
