package search

import (
	"bytes"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	glob    globPattern
	negate  bool // "!pattern" re-includes
	dirOnly bool // "pattern/" matches directories only
}

// ignoreFile is the parsed .gitignore of one directory.
type ignoreFile struct {
	dir   string // slash path of its directory relative to the walk root; "" for the root
	rules []ignoreRule
}

// ignoreChain is the stack of .gitignore files that apply in a
// directory, deepest first. It is immutable, so walkers on different
// goroutines share parents freely.
type ignoreChain struct {
	file   *ignoreFile
	parent *ignoreChain
}

// parseGitignore parses the content of a .gitignore in directory dir
// (slash-separated, relative to the walk root, "" for the root). Lines
// that are not valid patterns are skipped, as git does.
func parseGitignore(dir string, content []byte) *ignoreFile {
	f := &ignoreFile{dir: dir}
	for line := range bytes.SplitSeq(content, []byte("\n")) {
		s := strings.TrimSuffix(string(line), "\r")
		s = trimTrailingSpaces(s)
		if s == "" || s[0] == '#' {
			continue
		}
		var r ignoreRule
		if s[0] == '!' {
			r.negate = true
			s = s[1:]
		} else if strings.HasPrefix(s, `\!`) || strings.HasPrefix(s, `\#`) {
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			r.dirOnly = true
			s = strings.TrimRight(s, "/")
		}
		if s == "" {
			continue
		}
		// A slash anywhere but the end anchors the pattern to this
		// directory; compileGlob sees that because the trailing slash
		// is gone and a leading one is kept until it splits.
		anchored := strings.Contains(s, "/")
		s = strings.TrimPrefix(s, "/")
		g, err := compileGlob(s)
		if err != nil {
			continue
		}
		if anchored {
			g.basename = false
		}
		r.glob = g
		f.rules = append(f.rules, r)
	}
	return f
}

// trimTrailingSpaces drops trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	if strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-2] + " "
	}
	return s
}

// push returns the chain with f on top; a nil or empty f changes nothing.
func (c *ignoreChain) push(f *ignoreFile) *ignoreChain {
	if f == nil || len(f.rules) == 0 {
		return c
	}
	return &ignoreChain{file: f, parent: c}
}

// ignored reports whether rel (slash-separated, relative to the walk
// root) is ignored. The deepest .gitignore with a matching rule decides;
// within a file the last matching rule wins, as in git.
func (c *ignoreChain) ignored(rel string, isDir bool) bool {
	for ; c != nil; c = c.parent {
		sub := rel
		if d := c.file.dir; d != "" {
			if !strings.HasPrefix(rel, d+"/") {
				continue
			}
			sub = rel[len(d)+1:]
		}
		rules := c.file.rules
		for i := len(rules) - 1; i >= 0; i-- {
			r := rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			if r.glob.match(sub) {
				return !r.negate
			}
		}
	}
	return false
}
