package complete

import (
	"path"
	"strings"
)

// This file reads a source file's shape without parsing it, for any
// language: the lines that declare something at the top level, and the
// files it imports. Small models complete far better knowing the names
// a file defines and uses; a parser per language would cost more than
// the completion.

// declWords start a top-level declaration in the common languages.
var declWords = []string{
	"package", "import", "from", "func", "type", "var", "const", "def", "class", "async",
	"export", "function", "interface", "enum", "struct", "impl", "trait", "fn", "pub", "mod",
	"use", "module", "#include", "#define", "public", "private", "protected", "static", "let",
	"typedef", "namespace", "template", "object", "val", "data", "record", "local",
}

// maxOutlineLine bounds one outline line.
const maxOutlineLine = 160

// Outline returns text's top-level declaration lines, in order, each cut
// to a signature ("func Add(a, b int) int", not its body), and import
// blocks whole.
func Outline(text string) []string {
	var out []string
	inBlock := false
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if inBlock {
			out = append(out, clip(line))
			if strings.HasPrefix(strings.TrimSpace(line), ")") {
				inBlock = false
			}
			continue
		}
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		w, _, _ := strings.Cut(line, " ")
		w = strings.TrimRight(w, "(")
		if !isDeclWord(w) {
			continue
		}
		if strings.HasSuffix(line, "(") && (w == "import" || w == "from" || w == "var" || w == "const" || w == "type") {
			inBlock = true
			out = append(out, line)
			continue
		}
		out = append(out, clip(signature(line)))
	}
	return out
}

func isDeclWord(w string) bool {
	for _, d := range declWords {
		if w == d {
			return true
		}
	}
	return false
}

// signature drops a line's opening brace and what follows it on the line.
func signature(line string) string {
	if i := strings.LastIndex(line, "{"); i > 0 && !strings.Contains(line[i:], "}") {
		line = strings.TrimRight(line[:i], " ")
	}
	return line
}

func clip(s string) string {
	if len(s) <= maxOutlineLine {
		return s
	}
	return s[:runeStart(s, maxOutlineLine)] + "…"
}

func runeStart(s string, n int) int {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// importRef is one file or package a source file imports.
type importRef struct {
	path     string // slash-separated: "example.com/m/lib", "lib/util", "./util"
	relative bool   // relative to the importing file's directory
}

// Imports returns what text imports, as paths: Go import paths, Python
// modules (a.b → a/b), JS/TS module specifiers, C includes, Rust use
// and mod paths.
func imports(text string) []importRef {
	var out []importRef
	add := func(p string, rel bool) {
		if p != "" {
			out = append(out, importRef{path: p, relative: rel})
		}
	}
	inGoBlock := false
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		switch {
		case inGoBlock:
			if strings.HasPrefix(l, ")") {
				inGoBlock = false
				continue
			}
			add(quoted(l), false)
		case l == "import (":
			inGoBlock = true
		case strings.HasPrefix(l, "#include"):
			if q := quoted(l); q != "" {
				add(q, true)
			}
		case strings.HasPrefix(l, "from ") && strings.Contains(l, " import "):
			mod := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(l, " import ", 2)[0], "from "))
			add(pyModule(mod))
		case strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "export ") && strings.Contains(l, " from "):
			if q := quoted(l); q != "" {
				add(q, strings.HasPrefix(q, "."))
				continue
			}
			for _, m := range strings.Split(strings.TrimPrefix(l, "import "), ",") {
				m, _, _ = strings.Cut(strings.TrimSpace(m), " ")
				add(pyModule(m))
			}
		case strings.Contains(l, "require(") || strings.Contains(l, "import("):
			if q := quoted(l); q != "" {
				add(q, strings.HasPrefix(q, "."))
			}
		case strings.HasPrefix(l, "use ") || strings.HasPrefix(l, "pub use "):
			p := strings.TrimPrefix(strings.TrimPrefix(l, "pub "), "use ")
			p = strings.TrimSuffix(strings.SplitN(p, "{", 2)[0], ";")
			p = strings.TrimSuffix(strings.ReplaceAll(p, "::", "/"), "/")
			if rest, ok := strings.CutPrefix(p, "crate/"); ok {
				add(rest, false)
			} else if rest, ok := strings.CutPrefix(p, "super/"); ok {
				add("../"+rest, true)
			} else if rest, ok := strings.CutPrefix(p, "self/"); ok {
				add("./"+rest, true)
			}
		case strings.HasPrefix(l, "mod ") && strings.HasSuffix(l, ";"):
			add("./"+strings.TrimSuffix(strings.TrimPrefix(l, "mod "), ";"), true)
		}
	}
	return out
}

// pyModule turns a Python module ("a.b", ".c", "..d.e") into a path.
func pyModule(m string) (string, bool) {
	if m == "" {
		return "", false
	}
	m = strings.TrimSuffix(m, ";")
	dots := len(m) - len(strings.TrimLeft(m, "."))
	rest := strings.ReplaceAll(m[dots:], ".", "/")
	if dots == 0 {
		return rest, false
	}
	prefix := "./" + strings.Repeat("../", dots-1)
	return path.Clean(prefix + rest), true
}

// quoted returns the first "…", '…' or <…> quoted string on the line.
func quoted(l string) string {
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c != '"' && c != '\'' && c != '`' {
			continue
		}
		if j := strings.IndexByte(l[i+1:], c); j >= 0 {
			return l[i+1 : i+1+j]
		}
		return ""
	}
	return ""
}

// importsFile reports whether ref, imported from a file in dir, names
// the file at p (slash-separated, absolute): the file itself (any
// extension, an index or __init__ file), or a file of the package
// directory it names (Go: the last path elements match).
func (ref importRef) importsFile(dir, p string) bool {
	noExt := strings.TrimSuffix(p, path.Ext(p))
	pdir := path.Dir(p)
	if ref.relative {
		target := path.Join(dir, ref.path)
		return p == target || noExt == target ||
			pdir == target && (path.Base(noExt) == "index" || path.Base(noExt) == "__init__" || path.Base(noExt) == "mod")
	}
	if strings.HasSuffix(noExt, "/"+ref.path) || strings.HasSuffix(pdir, "/"+ref.path) {
		return true
	}
	// A Go import path names the package's directory by its module path,
	// which the file system does not show: match its last elements.
	last := path.Base(ref.path)
	return strings.Contains(ref.path, "/") && path.Base(pdir) == last && strings.HasSuffix(p, ".go")
}
