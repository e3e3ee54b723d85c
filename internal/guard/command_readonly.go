package guard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readOnlyCommands are programs that only read files and print: with the
// arguments readOnlyArgs accepts, they cannot change anything. Where
// exec has no sandbox to keep the workspace read-only, these run
// without asking the user.
var readOnlyCommands = set("ls", "cat", "head", "tail", "wc", "rg", "grep", "egrep", "fgrep", "find",
	"git", "go", "pwd", "echo", "printf", "stat", "file", "du", "df", "tree", "which", "type",
	"cut", "tr", "cmp", "basename", "dirname", "realpath", "readlink", "date", "whoami", "uname",
	"true", "false", "test", "[", "nl", "md5sum", "sha1sum", "sha256sum", "cd", "jq", "diff", "sort", "uniq")

// optionDriven are the read-only commands an option could turn into a
// writer or a runner (find -delete, git commit, sort -o).
var optionDriven = set("find", "git", "go", "sort", "uniq", "rg", "diff")

// readOnlyGit and readOnlyGo are the subcommands that only read.
var (
	readOnlyGit = set("status", "diff", "log", "show", "blame", "ls-files", "rev-parse", "grep", "shortlog", "describe")
	readOnlyGo  = set("vet", "list", "version", "env", "doc")
)

// ReadOnlyCommand reports whether every command on the line is one the
// guard knows only reads (ls, cat, grep, find without -delete/-exec,
// git status|diff|log|show|blame, go vet|list|version|env, …), with no
// output redirected to a file, no variable assignments and no control
// flow. It answers false whenever it is unsure: the caller then asks.
func ReadOnlyCommand(cmdline string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmdline), "")
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case nil, *syntax.File, *syntax.Stmt, *syntax.Word, *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted,
			*syntax.CmdSubst, *syntax.Comment, *syntax.Block, *syntax.Subshell:
		case *syntax.BinaryCmd:
			ok = n.Op == syntax.AndStmt || n.Op == syntax.OrStmt || n.Op == syntax.Pipe
		case *syntax.Redirect:
			ok = readOnlyRedirect(n)
		case *syntax.CallExpr:
			ok = len(n.Assigns) == 0 && readOnlyCall(words(n.Args))
		default:
			ok = false // parameters, arithmetic, loops, functions, …
		}
		return ok
	})
	return ok
}

// readOnlyRedirect accepts input redirections and output thrown away or
// duplicated (2>&1, >/dev/null).
func readOnlyRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.DplOut:
		return true
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll:
		return r.Word != nil && wordText(r.Word) == "/dev/null"
	}
	return false
}

func readOnlyCall(args []string) bool {
	if len(args) == 0 {
		return true
	}
	name := args[0]
	if strings.Contains(name, "/") || !readOnlyCommands[name] {
		return false
	}
	rest := args[1:]
	for _, a := range rest {
		// --output=FILE (git), --pre=CMD (rg) write or run; a word known
		// only at run time could be such an option.
		if strings.HasPrefix(a, "--output") || strings.HasPrefix(a, "--pre") || strings.Contains(a, dynamic) && optionDriven[name] {
			return false
		}
	}
	switch name {
	case "find":
		for _, a := range rest {
			switch a {
			case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
				return false
			}
		}
	case "git":
		sub := gitSubcommand(rest)
		return sub != "" && readOnlyGit[sub]
	case "go":
		if len(rest) == 0 || !readOnlyGo[rest[0]] {
			return false
		}
		return rest[0] != "env" || !hasAny(rest, "-w", "-u")
	case "sort":
		return !hasAny(rest, "-o") && !anyPrefix(rest, "-o")
	case "uniq":
		return len(operands(rest)) <= 1
	}
	return true
}

// gitSubcommand skips git's global options that cannot run anything
// (-C dir, --no-pager) and returns the subcommand; "" when an option
// could configure a program to run (-c, --exec-path, …).
func gitSubcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C":
			i++
		case a == "--no-pager" || a == "-P" || a == "--no-optional-locks":
		case strings.HasPrefix(a, "-"):
			return ""
		default:
			return a
		}
	}
	return ""
}

func anyPrefix(args []string, prefix string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, prefix) && !strings.HasPrefix(a, "--") {
			return true
		}
	}
	return false
}
