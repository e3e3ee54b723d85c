package tools

import (
	"strings"
	"testing"
)

func TestSymbolOffset(t *testing.T) {
	content := []byte("package p\r\n\r\nfunc AddAll() { Add(x); a.Add(y) } // 🐱 Add\r\n")
	cases := []struct {
		line       int
		symbol     string
		occurrence int
		want       int // byte offset, or -1 for an error
		err        string
	}{
		{3, "Add", 1, strings.Index(string(content), "Add(x)"), ""},
		{3, "Add", 2, strings.Index(string(content), "Add(y)"), ""},
		{3, "Add", 3, strings.LastIndex(string(content), "Add"), ""},
		{3, "AddAll", 0, strings.Index(string(content), "AddAll"), ""},
		{3, "Add", 4, -1, `"Add" appears 3 times on line 3 of p.go, not 4`},
		{3, "Sub", 1, -1, `"Sub" is not on line 3 of p.go, which reads: func AddAll() { Add(x); a.Add(y) } // 🐱 Add`},
		{2, "x", 1, -1, "is not on line 2"},
		{4, "x", 1, -1, "line 4 is past the end of p.go (3 lines)"},
		{0, "x", 1, -1, "line 0 is past the end"},
	}
	for _, c := range cases {
		got, err := symbolOffset(content, "p.go", c.line, c.symbol, c.occurrence)
		switch {
		case c.want >= 0 && (err != nil || got != c.want):
			t.Errorf("line %d %q #%d: got %d, %v; want %d", c.line, c.symbol, c.occurrence, got, err, c.want)
		case c.want < 0 && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("line %d %q #%d: got %d, %v; want an error with %q", c.line, c.symbol, c.occurrence, got, err, c.err)
		}
	}
}
