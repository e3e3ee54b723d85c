package lsp

import (
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The names in the editor's messages (an applyEdit's label, a redirect
// warning) are quoted when they hold control characters: an escape
// sequence or a newline must not reach a terminal editor's message line
// raw.
func TestChangedNamesQuoted(t *testing.T) {
	cs := []tools.Change{
		{Path: guard.Path{Rel: "calc.go"}},
		{Path: guard.Path{Rel: "evil\x1b[2J\nforged.go"}},
	}
	got := changedNames(cs)
	if want := `calc.go, "evil\x1b[2J\nforged.go"`; got != want {
		t.Errorf("changedNames = %q, want %q", got, want)
	}
	if strings.ContainsAny(got, "\x1b\n") {
		t.Errorf("changedNames = %q holds a control character", got)
	}
}
