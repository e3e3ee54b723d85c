package complete

import (
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Prompt is what a completion tells the model, before any wire format:
// the text around the cursor and the context that makes small models
// good. Render it with fimParts or chatMessage.
type Prompt struct {
	// Path is the file's path as shown to the model (relative to its
	// workspace folder), Language its language id.
	Path, Language string
	// Prefix and Suffix are the text before and after the cursor, whole
	// lines (but the cursor's) within the bounds of source.go.
	Prefix, Suffix string
	// Outline is the file's declarations above Prefix (its imports and
	// top-level signatures), when Prefix does not start at the top.
	Outline []string
	// Related are other open files: the ones this file imports first,
	// then the ones edited last.
	Related []Snippet
	// Edits are the user's last edits elsewhere, newest first:
	// "main.go:12: x := lib.Add(1, 2)".
	Edits []string
}

// Snippet is another file's text, or its outline when it is long.
type Snippet struct {
	Path string
	Text string
	// Why it is there: "imported" or "edited".
	Why string
}

// Budgets of the context, in bytes (the window is source.go's).
const (
	outlineBytes = 1200
	relatedBytes = 2500
	relatedFile  = 1500
	maxRelated   = 4
	editBytes    = 600
	maxEdits     = 5
	headBytes    = 16 << 10 // read from a file's top for its outline and imports
)

// Build turns req into a Prompt: the window cut to whole lines, the
// file's outline, the related open buffers f lets it share, and the
// recent edits t recorded. It reads src for a few KB per file at most.
func Build(req Request, src Source, f *Filter, t *Tracker) Prompt {
	p := Prompt{Path: f.display(req.Doc.Path), Language: req.Doc.LanguageID}
	prefix, start := req.Prefix, req.PrefixStart
	if start > 0 {
		if i := strings.IndexByte(prefix, '\n'); i >= 0 {
			prefix, start = prefix[i+1:], start+i+1
		}
	}
	if n := strings.Count(prefix, "\n"); n > maxPrefixLine {
		drop := nthIndex(prefix, '\n', n-maxPrefixLine)
		prefix, start = prefix[drop+1:], start+drop+1
	}
	suffix := req.Suffix
	if req.SuffixCut {
		if i := strings.LastIndexByte(suffix, '\n'); i >= 0 {
			suffix = suffix[:i+1]
		}
	}
	if n := strings.Count(suffix, "\n"); n > maxSuffixLine {
		suffix = suffix[:nthIndex(suffix, '\n', maxSuffixLine)+1]
	}
	p.Prefix, p.Suffix = prefix, suffix

	importText := prefix
	if start > 0 {
		head, _ := src.Head(req.Doc.Key, min(headBytes, start))
		h := string(head)
		if len(head) == headBytes {
			h = h[:strings.LastIndexByte(h, '\n')+1] // no partial last line
		}
		importText = h
		p.Outline = fitLines(Outline(h), outlineBytes)
	}

	docs := src.Docs()
	byKey := make(map[string]Doc, len(docs))
	for _, d := range docs {
		byKey[d.Key] = d
	}
	p.Related = related(req.Doc, imports(importText), docs, src, f, t)
	lo, hi := req.Line-strings.Count(prefix, "\n"), req.Line+strings.Count(suffix, "\n")
	p.Edits = recentEdits(req.Doc.Key, lo, hi, byKey, src, f, t)
	return p
}

// recentEdits are the user's last edits outside lines lo..hi of cur,
// newest first, as "REL:LINE: the line as it is now", within editBytes:
// only in open documents, never in a file f does not let them share.
func recentEdits(cur string, lo, hi int, byKey map[string]Doc, src Source, f *Filter, t *Tracker) []string {
	var out []string
	used := 0
	for _, e := range t.Recent(2 * maxEdits) {
		d, ok := byKey[e.Doc]
		if !ok || e.Line < 0 || len(out) == maxEdits {
			continue
		}
		if e.Doc == cur && e.Line >= lo && e.Line <= hi || e.Doc != cur && !f.Shares(d.Path) {
			continue
		}
		line, ok := src.Line(e.Doc, e.Line)
		line = strings.TrimSpace(line)
		if !ok || line == "" {
			continue
		}
		s := clip(f.display(d.Path) + ":" + strconv.Itoa(e.Line+1) + ": " + line)
		if used+len(s) > editBytes {
			break
		}
		used += len(s)
		out = append(out, s)
	}
	return out
}

// related picks the other open files worth the model's reading: those
// cur imports, in import order, then those edited last; each whole if
// short, else its outline.
func related(cur Doc, refs []importRef, docs []Doc, src Source, f *Filter, t *Tracker) []Snippet {
	dir := path.Dir(filepath.ToSlash(cur.Path))
	type cand struct {
		d    Doc
		rank int // import order, or len(refs)+ for edited ones
		seq  uint64
		why  string
	}
	var cands []cand
	for _, d := range docs {
		if d.Key == cur.Key || !f.Shares(d.Path) {
			continue
		}
		p := filepath.ToSlash(d.Path)
		c := cand{d: d, rank: -1}
		for i, r := range refs {
			if r.importsFile(dir, p) {
				c.rank, c.why = i, "imported"
				break
			}
		}
		if c.rank < 0 {
			if c.seq = t.LastEdited(d.Key); c.seq == 0 {
				continue
			}
			c.rank, c.why = len(refs), "edited"
		}
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].rank != cands[j].rank {
			return cands[i].rank < cands[j].rank
		}
		return cands[i].seq > cands[j].seq
	})
	var out []Snippet
	left := relatedBytes
	for _, c := range cands {
		if len(out) == maxRelated || left < 200 {
			break
		}
		limit := min(relatedFile, left)
		var text string
		if c.d.Size <= limit {
			b, ok := src.Head(c.d.Key, limit)
			if !ok {
				continue
			}
			text = string(b)
		} else {
			b, ok := src.Head(c.d.Key, headBytes)
			if !ok {
				continue
			}
			text = strings.Join(fitLines(Outline(string(b)), limit), "\n")
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		left -= len(text)
		out = append(out, Snippet{Path: f.display(c.d.Path), Text: text, Why: c.why})
	}
	return out
}

// fitLines keeps the first lines that fit in n bytes.
func fitLines(lines []string, n int) []string {
	used := 0
	for i, l := range lines {
		if used+len(l)+1 > n {
			return lines[:i]
		}
		used += len(l) + 1
	}
	return lines
}

// nthIndex returns the index of the n-th (1-based) c in s.
func nthIndex(s string, c byte, n int) int {
	i := -1
	for ; n > 0; n-- {
		j := strings.IndexByte(s[i+1:], c)
		if j < 0 {
			return len(s) - 1
		}
		i += j + 1
	}
	return i
}
