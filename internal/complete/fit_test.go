package complete

import (
	"strings"
	"testing"
)

func TestFitCutsContextFirstAndKeepsTheCursor(t *testing.T) {
	p := Prompt{
		Prefix:  strings.Repeat("before line\n", 100) + "\treturn ",
		Suffix:  "\n" + strings.Repeat("after line\n", 100),
		Outline: []string{"import \"fmt\"", "func A()", "func B()"},
		Related: []Snippet{{Path: "lib.go", Text: strings.Repeat("x", 500), Why: "imported"}},
		Edits:   []string{"main.go:3: a := 1", "main.go:9: b := 2"},
	}
	if got := p.fit(32_768); !equalPrompt(got, p) {
		t.Errorf("a 32k window cut the prompt: %+v", got)
	}
	// Room for the text around the cursor, not for the context.
	got := p.fit((len(p.Prefix)+len(p.Suffix))/bytesPerToken + 1)
	if len(got.Edits)+len(got.Related)+len(got.Outline) != 0 || got.Prefix != p.Prefix || got.Suffix != p.Suffix {
		t.Errorf("the context is not what went first: %+v", got)
	}
	// A tiny window: the far ends go, on whole lines, the cursor's line stays.
	got = p.fit(100)
	if !strings.HasSuffix(got.Prefix, "before line\n\treturn ") || !strings.HasPrefix(got.Prefix, "before line\n") {
		t.Errorf("prefix cut to %q, want whole lines ending at the cursor", got.Prefix)
	}
	if !strings.HasPrefix(got.Suffix, "\n") || strings.Count(got.Suffix, "\n") > 20 || !strings.HasSuffix(got.Suffix, "\n") {
		t.Errorf("suffix cut to %q", got.Suffix)
	}
	if n := len(got.Prefix) + len(got.Suffix); n > 100*bytesPerToken {
		t.Errorf("%d bytes after fitting 100 tokens", n)
	}
	if got := p.fit(0); got.Prefix != "\treturn " || got.Suffix != "" {
		t.Errorf("no room at all: prefix %q suffix %q, want the cursor's line alone", got.Prefix, got.Suffix)
	}
}

func equalPrompt(a, b Prompt) bool {
	return a.Prefix == b.Prefix && a.Suffix == b.Suffix && len(a.Outline) == len(b.Outline) &&
		len(a.Related) == len(b.Related) && len(a.Edits) == len(b.Edits)
}
