package guard

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Dialect is the shell language a command line is read in. The guard
// must read a line as the shell that runs it does: `$'it\'s; rm -rf ~ #'`
// is one quoted word to bash and a deletion of the home directory to
// dash, Debian's and Ubuntu's /bin/sh.
type Dialect uint8

const (
	// DialectPOSIX is /bin/sh, which may be dash or bash in POSIX mode:
	// where exec finds no bash, and for the scripts of `sh -c`. A line
	// is read as POSIX sh, and whatever bash would read differently
	// (here-strings, $'…', process substitution, [[ ]], brace
	// expansion, arrays) is refused with the reason, since the guard
	// cannot know which of the two runs it. It is the zero value, the
	// strictest reading.
	DialectPOSIX Dialect = iota
	// DialectBash is bash: the line is read as bash reads it.
	DialectBash
)

func (d Dialect) String() string {
	if d == DialectBash {
		return "bash"
	}
	return "POSIX sh"
}

// dialectOf is the dialect a nested shell reads its script in: bash's
// own, POSIX sh for sh and its relatives, and bash's for the other
// shells (zsh, ksh), whose syntax is closer to bash than to POSIX.
func dialectOf(shell string) Dialect {
	switch shell {
	case "sh", "dash", "ash", "posh":
		return DialectPOSIX
	}
	return DialectBash
}

// parse reads src in dialect d, or returns the refusal that says why it
// cannot be checked. haveBash says the line itself runs in bash, so a
// POSIX reading is that of a shell it starts (`sh -c`), and bash -c is
// the way out; otherwise bash is not installed at all.
func parse(src string, d Dialect, haveBash bool) (*syntax.File, error) {
	bash, bashErr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if d == DialectBash {
		if bashErr != nil {
			return nil, refuse(src, fmt.Sprintf("cannot be parsed, so it cannot be checked: %v", bashErr))
		}
		return bash, nil
	}
	advice := "; bash is not installed here, so commands run in /bin/sh, which may be dash: write it in POSIX sh"
	if haveBash {
		advice = "; sh runs its script as POSIX sh, which may be dash: write it in POSIX sh, or give it to bash -c '…'"
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), "")
	if err != nil {
		if bashErr == nil {
			return nil, refuse(src, fmt.Sprintf("uses bash syntax that %s does not read (%v)%s", d, err, advice))
		}
		return nil, refuse(src, fmt.Sprintf("cannot be parsed, so it cannot be checked: %v", err))
	}
	if bashErr == nil {
		if why := bashOnly(bash); why != "" {
			return nil, refuse(src, why+advice)
		}
	}
	return f, nil
}

// bashOnly names the first construct of a line (as bash parsed it) that
// a POSIX sh parses without error but reads differently, or "".
func bashOnly(f *syntax.File) string {
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.SglQuoted:
			if n.Dollar {
				why = "quotes with $'…', which is bash's; a POSIX sh reads it as a $ followed by a '…' string that ends at the first '"
			}
		case *syntax.DblQuoted:
			if n.Dollar {
				why = `quotes with $"…", which is bash's; a POSIX sh reads it as a $ followed by a "…" string`
			}
		case *syntax.TestClause:
			why = "tests with [[ … ]], which is bash's; a POSIX sh runs [[ as a command that does not exist"
		case *syntax.Word:
			if w := words([]*syntax.Word{n}); len(w) > 1 {
				why = fmt.Sprintf("uses brace expansion (%s is %s to bash), which is bash's; a POSIX sh passes the braces literally",
					shown(wordText(n)), shown(strings.Join(w, " ")))
			}
		}
		return why == ""
	})
	return why
}

// shown renders a word for a message, its run-time parts as $(…).
func shown(w string) string {
	return strings.ReplaceAll(w, dynamic, "$(…)")
}
