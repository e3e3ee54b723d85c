package guard

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// dynamic stands in for a part of a word only known at run time (a
// command substitution, an arithmetic expansion).
const dynamic = "\x00dyn\x00"

// wordText renders w as the shell would pass it, for the parts known
// statically: quotes removed, backslash escapes resolved, parameters
// kept as $NAME so ~ and $HOME can be recognised.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	writeParts(&b, w.Parts, false)
	return b.String()
}

func writeParts(b *strings.Builder, parts []syntax.WordPart, inDouble bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, inDouble))
		case *syntax.SglQuoted:
			if !p.Dollar {
				b.WriteString(p.Value)
				break
			}
			// $'\x72m' is rm to bash: judge the decoded text, cut at a
			// NUL as bash does.
			v, _, err := expand.Format(nil, p.Value, nil)
			if err != nil {
				b.WriteString(dynamic)
				break
			}
			v, _, _ = strings.Cut(v, "\x00")
			b.WriteString(v)
		case *syntax.DblQuoted:
			writeParts(b, p.Parts, true)
		case *syntax.ParamExp:
			if p.Param != nil && !p.Length && !p.Excl && p.Slice == nil && p.Repl == nil && p.Exp == nil {
				b.WriteString("$" + p.Param.Value)
			} else {
				b.WriteString(dynamic)
			}
		default:
			b.WriteString(dynamic)
		}
	}
}

// unescape resolves backslash escapes: outside quotes a backslash quotes
// any character; inside double quotes only $ ` " \ and newline.
func unescape(s string, inDouble bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if !inDouble || strings.IndexByte("$`\"\\\n", next) >= 0 {
				if next != '\n' {
					b.WriteByte(next)
				}
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// words renders a command's words after brace expansion, so
// `{rm,-rf,/}` is seen as three words.
func words(ws []*syntax.Word) []string {
	var out []string
	for _, w := range ws {
		cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
		if !syntax.SplitBraces(cp) {
			out = append(out, wordText(w))
			continue
		}
		for ew, err := range expand.BracesSeq(nil, cp) {
			if err != nil {
				out = append(out, dynamic)
				break
			}
			out = append(out, wordText(ew))
		}
	}
	return out
}

// commandName is the base name of a command word: /bin/rm and
// /usr/bin/env are rm and env.
func commandName(w string) string {
	return filepath.Base(w)
}

// unwrap strips the commands that only run another command — env (with
// its assignments and options), command, exec, builtin, nice, nohup,
// timeout, time, stdbuf, ionice, setsid, chrt, taskset, xargs, busybox —
// and returns the words of the command that really runs.
func unwrap(args []string) []string {
	for len(args) > 0 {
		name := commandName(args[0])
		rest := args[1:]
		switch name {
		case "env":
			for len(rest) > 0 {
				a := rest[0]
				switch {
				case a == "-S" || a == "--split-string":
					if len(rest) > 1 {
						rest = append(strings.Fields(rest[1]), rest[2:]...)
					} else {
						rest = nil
					}
					continue
				case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir":
					rest = rest[min(2, len(rest)):]
					continue
				case a == "--":
					rest = rest[1:]
				case strings.HasPrefix(a, "-") && a != "-":
					rest = rest[1:]
					continue
				case strings.Contains(a, "="):
					rest = rest[1:]
					continue
				}
				break
			}
		case "command", "exec", "builtin", "nohup", "time", "setsid", "busybox":
			rest = skipOpts(rest, map[string]bool{"-a": true})
		case "nice", "ionice", "stdbuf":
			rest = skipOpts(rest, map[string]bool{"-n": true, "-c": true, "-p": true, "-i": true, "-o": true, "-e": true, "--adjustment": true})
		case "timeout":
			rest = skipOpts(rest, map[string]bool{"-s": true, "--signal": true, "-k": true, "--kill-after": true})
			if len(rest) > 0 {
				rest = rest[1:] // the duration
			}
		case "chrt", "taskset":
			rest = skipOpts(rest, nil)
			if len(rest) > 0 {
				rest = rest[1:] // priority or mask
			}
		case "xargs":
			rest = skipOpts(rest, map[string]bool{"-n": true, "-P": true, "-I": true, "-L": true, "-s": true, "-d": true, "-E": true, "-a": true})
		default:
			return args
		}
		args = rest
	}
	return args
}

// skipOpts drops leading options; withValue names options that take the
// next word as their value. "--" ends the options.
func skipOpts(args []string, withValue map[string]bool) []string {
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return args[1:]
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return args
		}
		args = args[1:]
		if withValue[a] && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}
