package guard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// simpleCommands returns the words of every simple command on the line,
// in order, or ok=false when the line does not parse or holds control
// flow (loops, functions, conditionals) whose commands cannot be listed
// plainly, or — with readRedirects — a redirection that writes a file.
func simpleCommands(cmdline string, readRedirects bool) (cmds [][]string, ok bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmdline), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil, false
	}
	ok = true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case nil, *syntax.File, *syntax.Stmt, *syntax.Word, *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted,
			*syntax.CmdSubst, *syntax.Comment, *syntax.Block, *syntax.Subshell, *syntax.BinaryCmd,
			*syntax.ParamExp, *syntax.Assign:
		case *syntax.Redirect:
			ok = !readRedirects || readOnlyRedirect(n)
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				cmds = append(cmds, words(n.Args))
			}
		default:
			ok = false
		}
		return ok
	})
	return cmds, ok
}

// CommandPrefix returns the words an "Always allow" rule for cmdline
// would name: the one command on the line that is not read-only, with
// its subcommand when it has one (`go generate`, `npm install`, `make`),
// or the line's only command when that one is read-only (`ls`, asked
// about where the sandbox cannot hide .catbuddy/'s names). It returns ""
// when there is no single such command to name.
func CommandPrefix(cmdline string) string {
	cmds, ok := simpleCommands(cmdline, false)
	if !ok {
		return ""
	}
	var pick []string
	for _, c := range cmds {
		if readOnlyCall(c) {
			continue
		}
		if pick != nil {
			return "" // two commands would need two rules
		}
		pick = c
	}
	if pick == nil && len(cmds) == 1 {
		pick = cmds[0]
	}
	if len(pick) == 0 || runtimeName(pick[0]) {
		return ""
	}
	prefix := pick[:1]
	if len(pick) > 1 && isSubcommand(pick[1]) {
		prefix = pick[:2]
	}
	return strings.Join(prefix, " ")
}

// isSubcommand reports whether w reads as a subcommand (generate,
// install, run-script), not an option, path, pattern or value.
func isSubcommand(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}

// MatchPrefix reports which rule, if any, covers cmdline: every simple
// command on it either starts with the rule's words (whole words) or is
// a read-only one, at least one starts with a rule, and no redirection
// writes a file. A line whose commands cannot be listed matches nothing.
// (A line of read-only commands alone needs a rule only where even
// those are asked about, see tools' stateNamesListable.)
func MatchPrefix(cmdline string, rules []string) (rule string, ok bool) {
	cmds, parsed := simpleCommands(cmdline, true)
	if !parsed {
		return "", false
	}
	for _, c := range cmds {
		r := firstMatch(c, rules)
		if r == "" {
			if readOnlyCall(c) {
				continue
			}
			return "", false
		}
		rule = r
	}
	return rule, rule != ""
}

// AnyPrefix reports the first rule that some simple command on cmdline
// starts with, for refusals: a line that cannot be listed is judged by
// its plain words.
func AnyPrefix(cmdline string, rules []string) (string, bool) {
	cmds, ok := simpleCommands(cmdline, false)
	if !ok {
		cmds = [][]string{strings.Fields(cmdline)}
	}
	for _, c := range cmds {
		if r := firstMatch(unwrap(c), rules); r != "" {
			return r, true
		}
		if r := firstMatch(c, rules); r != "" {
			return r, true
		}
	}
	return "", false
}

func firstMatch(words []string, rules []string) string {
	for _, r := range rules {
		rw := strings.Fields(r)
		if len(rw) == 0 || len(rw) > len(words) {
			continue
		}
		match := true
		for i, w := range rw {
			if words[i] != w {
				match = false
				break
			}
		}
		if match {
			return r
		}
	}
	return ""
}

// gitWriters are git subcommands that write .git/ itself.
var gitWriters = set("add", "am", "apply", "branch", "checkout", "cherry-pick", "clean", "clone", "commit",
	"fetch", "gc", "init", "merge", "mv", "pull", "rebase", "reset", "restore", "revert", "rm", "stash",
	"switch", "tag", "worktree", "submodule", "notes", "update-index", "update-ref")

// GitWrites reports whether a simple command on the line is one of git's
// own operations that write .git/ (git commit, git checkout, …). `git
// config` is not among them: it can point git at programs to run.
func GitWrites(cmdline string) bool {
	cmds, ok := simpleCommands(cmdline, false)
	if !ok {
		return false
	}
	for _, c := range cmds {
		c = unwrap(c)
		if len(c) > 1 && commandName(c[0]) == "git" && gitWriters[gitSubcommand(c[1:])] {
			return true
		}
	}
	return false
}
