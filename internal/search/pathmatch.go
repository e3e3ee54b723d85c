package search

import (
	"fmt"
	"path"
	"strings"
)

// globPattern is a compiled slash-separated glob: "*", "?" and "[...]"
// within one path segment (path.Match syntax, "[!...]" accepted too),
// "**" as a whole segment for any number of segments. A pattern without
// a slash matches a path's last segment at any depth, as in .gitignore
// and ripgrep's --glob.
type globPattern struct {
	segs     []string
	basename bool // no slash in the pattern: match the last segment only
	// suffix is set for a basename pattern "*<literal>" ("*.tmp"), the
	// most common .gitignore line: a suffix test instead of path.Match,
	// for every file of every walk.
	suffix string
	// negate: the pattern was written "!…": it matches what the rest
	// does not (ripgrep's -g '!…').
	negate bool
}

// Globs are the alternatives of one glob pattern as written: braces
// ("*.{ts,tsx}") expand to one compiled pattern each.
type Globs []globPattern

// CompileGlobs expands braces and compiles each result. A pattern
// written "!…" matches every path the rest does not, as ripgrep's
// -g '!…' does.
func CompileGlobs(pattern string) (Globs, error) {
	negate := strings.HasPrefix(pattern, "!")
	pattern = strings.TrimPrefix(pattern, "!")
	if strings.TrimSpace(pattern) == "" {
		return nil, fmt.Errorf("glob pattern is empty")
	}
	var out Globs
	for _, p := range expandBraces(pattern) {
		g, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		g.negate = negate
		out = append(out, g)
	}
	return out, nil
}

// Negated reports whether gs was written "!…".
func (gs Globs) Negated() bool { return len(gs) > 0 && gs[0].negate }

func compileGlob(p string) (globPattern, error) {
	p = strings.TrimPrefix(p, "./")
	anchored := strings.Contains(strings.TrimSuffix(p, "/"), "/")
	p = strings.Trim(p, "/")
	var segs []string
	for s := range strings.SplitSeq(p, "/") {
		if s == "" {
			continue
		}
		if s != "**" {
			// "a**b" is not a globstar: git and ripgrep treat it as "*".
			for strings.Contains(s, "**") {
				s = strings.ReplaceAll(s, "**", "*")
			}
			s = strings.ReplaceAll(s, "[!", "[^")
			if _, err := path.Match(s, ""); err != nil {
				return globPattern{}, fmt.Errorf("bad glob pattern %q: %v", p, err)
			}
		}
		segs = append(segs, s)
	}
	if len(segs) == 1 && segs[0] == "**" {
		anchored = true
	}
	g := globPattern{segs: segs, basename: !anchored}
	if g.basename && len(segs) == 1 && strings.HasPrefix(segs[0], "*") && !strings.ContainsAny(segs[0][1:], `*?[\`) && len(segs[0]) > 1 {
		g.suffix = segs[0][1:]
	}
	return g, nil
}

// match reports whether the slash-separated relative path rel matches.
func (g globPattern) match(rel string) bool {
	if g.basename {
		if g.suffix != "" {
			return strings.HasSuffix(path.Base(rel), g.suffix)
		}
		ok, _ := path.Match(g.segs[0], path.Base(rel))
		return ok
	}
	return matchSegs(g.segs, strings.Split(rel, "/"))
}

// Match reports whether the slash-separated relative path rel matches
// one of gs.
func (gs Globs) Match(rel string) bool {
	for _, g := range gs {
		if g.match(rel) {
			return !g.negate
		}
	}
	return gs.Negated()
}

// matchSegs matches pattern segments against path segments. "**"
// matches zero or more segments, except as the last pattern segment,
// where it needs at least one ("dir/**" is what is inside dir).
func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(segs) > 0
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// expandBraces expands the first {a,b,...} group (recursively, so nested
// and repeated groups work). A brace without a comma or closing brace is
// kept literally.
func expandBraces(p string) []string {
	depth, open := 0, -1
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			alts := splitTopLevel(p[open+1 : i])
			if len(alts) < 2 {
				open = -1
				continue
			}
			var out []string
			for _, a := range alts {
				out = append(out, expandBraces(p[:open]+a+p[i+1:])...)
			}
			return out
		}
	}
	return []string{p}
}

func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
