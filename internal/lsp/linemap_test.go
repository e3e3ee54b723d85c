package lsp

import (
	"strings"
	"testing"
)

func TestLineMap(t *testing.T) {
	user := "a\nb\nc\nd\ne\nf\n"
	// b is changed into two lines, d removed, a line added at the end.
	view := "a\nB1\nB2\nc\ne\nf\ng\n"
	m := NewLineMap([]byte(user), []byte(view))
	if !m.Changed() {
		t.Fatal("no change found")
	}
	ul := strings.Split(strings.TrimSuffix(user, "\n"), "\n")
	vl := strings.Split(strings.TrimSuffix(view, "\n"), "\n")
	for v, text := range vl {
		u, ok := m.ToUser(v)
		inHunk := text == "B1" || text == "B2" || text == "g"
		if ok == inHunk {
			t.Errorf("view line %d (%s): ToUser ok = %v", v, text, ok)
			continue
		}
		if ok && ul[u] != text {
			t.Errorf("view line %d (%s) → user line %d (%s)", v, text, u, ul[u])
		}
	}
	for u, text := range ul {
		v, ok := m.ToView(u)
		gone := text == "b" || text == "d"
		if ok == gone {
			t.Errorf("user line %d (%s): ToView ok = %v", u, text, ok)
			continue
		}
		if ok && vl[v] != text {
			t.Errorf("user line %d (%s) → view line %d (%s)", u, text, v, vl[v])
		}
		if !ok && (text == "b" && vl[v] != "B1" || text == "d" && vl[v] != "e") {
			t.Errorf("a changed user line %d (%s) maps to view line %d (%s), not its hunk's start", u, text, v, vl[v])
		}
	}
	if m := NewLineMap([]byte(user), []byte(user)); m.Changed() {
		t.Error("the same text has a change")
	}
	// A file without a final newline, changed on its last line.
	m = NewLineMap([]byte("x\ny"), []byte("x\nz\nw"))
	if u, ok := m.ToUser(0); !ok || u != 0 {
		t.Errorf("unchanged first line → %d, %v", u, ok)
	}
	if _, ok := m.ToUser(2); ok {
		t.Error("an added last line maps to the user's text")
	}
}
