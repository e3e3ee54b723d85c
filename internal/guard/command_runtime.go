package guard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runtimeName reports whether a command word is known only at run time:
// a command substitution or arithmetic in it, or a variable standing for
// the whole name ($cmd, ${cmd}). A variable naming a directory
// ($HOME/bin/tool) leaves the name itself known.
func runtimeName(w string) bool {
	if strings.Contains(w, dynamic) {
		return true
	}
	return strings.HasPrefix(w, "$") && !strings.Contains(w, "/")
}

// readsProgram reports whether the command name with arguments rest
// reads the program it runs from stdin: a shell without -c or a script
// operand (or with -s), `python -`, `perl`/`node`/`ruby` without -e and
// without a script, `source /dev/stdin`.
func readsProgram(name string, rest []string) bool {
	switch {
	case shells[name]:
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			switch {
			case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
				i++
			case a == "--":
				return i+1 >= len(rest) || rest[i+1] == "-"
			case a == "-" || a == "-s":
				return true
			case strings.HasPrefix(a, "--"):
			case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
				if strings.Contains(a[1:], "c") {
					return false
				}
				if strings.Contains(a[1:], "s") {
					return true
				}
			default:
				return false
			}
		}
		return true
	case name == "source" || name == ".":
		return len(rest) > 0 && stdinPath(rest[0])
	case name == "eval":
		return false
	case interpreters[name]:
		inline := "ecm"
		switch name {
		case "node", "nodejs":
			inline = "ep"
		case "php":
			inline = "r"
		}
		for _, a := range rest {
			switch {
			case a == "-":
				return true
			case a == "--eval" || a == "--print" || a == "--command":
				return false
			case strings.HasPrefix(a, "--"):
			case strings.HasPrefix(a, "-"):
				if strings.ContainsAny(a[1:], inline) {
					return false
				}
			default:
				return stdinPath(a)
			}
		}
		return true
	}
	return false
}

// stdinPath reports whether a path names the process's own stdin.
func stdinPath(p string) bool {
	switch p {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// followCd returns the working directory after c when c is `cd` or
// `pushd`; otherwise, or when the target is known only at run time,
// cwd unchanged.
func (g *CommandGuard) followCd(c *syntax.CallExpr, cwd string) string {
	args := unwrap(words(c.Args))
	if len(args) == 0 {
		return cwd
	}
	if n := commandName(args[0]); n != "cd" && n != "pushd" {
		return cwd
	}
	ops := operands(args[1:])
	if len(ops) == 0 {
		if g.Home != "" {
			return g.Home
		}
		return cwd
	}
	t := ops[0]
	if t == "-" || strings.Contains(t, dynamic) || runtimeName(t) {
		return cwd
	}
	if strings.HasPrefix(t, "$") && !strings.HasPrefix(t, "$HOME") && !strings.HasPrefix(t, "${HOME}") {
		return cwd
	}
	return g.abs(t, cwd)
}
