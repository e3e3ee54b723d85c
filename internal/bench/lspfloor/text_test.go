package main

import (
	"strings"
	"testing"
)

func TestTextApply(t *testing.T) {
	at := func(l1, c1, l2, c2 int) *lspRange {
		return &lspRange{Start: position{l1, c1}, End: position{l2, c2}}
	}
	tests := []struct {
		name, before string
		r            *lspRange
		insert, want string
	}{
		{"typing", "ab\ncd\n", at(1, 1, 1, 1), "x", "ab\ncxd\n"},
		{"after an astral rune", "😀b\n", at(0, 2, 0, 2), "x", "😀xb\n"},
		{"past the line's end", "ab\ncd", at(0, 9, 0, 9), "x", "abx\ncd"},
		{"past the last line", "ab\n", at(5, 0, 5, 0), "x", "ab\nx"},
		{"join lines", "ab\ncd\nef", at(0, 1, 2, 1), "", "af"},
		{"split a line", "ab\ncd", at(0, 1, 0, 1), "\n", "a\nb\ncd"},
		{"across lines, new lines", "ab\ncd\nef\n", at(0, 2, 1, 0), "1\n2\n", "ab1\n2\ncd\nef\n"},
		{"backwards range", "ab", at(0, 2, 0, 1), "x", "ab"},
		{"whole document", "ab", nil, "new\n", "new\n"},
	}
	for _, tt := range tests {
		txt := newText(tt.before)
		txt.apply(tt.r, tt.insert)
		if got := strings.Join(txt.lines, ""); got != tt.want {
			t.Errorf("%s: %q → %q, want %q", tt.name, tt.before, got, tt.want)
		}
		if n := strings.Count(tt.want, "\n") + 1; len(txt.lines) != n {
			t.Errorf("%s: %d lines %q, want %d", tt.name, len(txt.lines), txt.lines, n)
		}
	}
}
