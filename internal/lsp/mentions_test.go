package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

func TestMentionBringsTheBuffersText(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("It says hello.")}}, nil)
	notes := filepath.Join(f.dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("DISK TEXT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(f.dir, ".catbuddy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, ".catbuddy", "secret.txt"), []byte("STATE TEXT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.ed.OpenText(notes, "BUFFER TEXT, unsaved\n")

	end := f.awaitEnd(t, f.start(t, "catbuddy.run", map[string]any{
		"command": "ask", "input": "What do @notes.txt, @missing.txt and @.catbuddy/secret.txt say?",
	}))
	if end.Outcome != "done" {
		t.Fatalf("end = %+v", end)
	}
	got := f.model.Requests()[0].LastUserText()
	for _, want := range []string{"## Mentioned files", "File notes.txt (mentioned as @notes.txt), as the user sees it:", "     1\tBUFFER TEXT, unsaved", "@missing.txt: no such file in the workspace.", "@.catbuddy/secret.txt: not readable:"} {
		if !strings.Contains(got, want) {
			t.Errorf("the task lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"DISK TEXT", "STATE TEXT"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the task has %q:\n%s", unwanted, got)
		}
	}
}

// A reply's @-mentions bring their files the same way: the buffer's text,
// through the PathGuard.
func TestReplyMentionBringsTheBuffersText(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.TextTurn("Add subtracts."),
		agenttest.TextTurn("The notes say so too."),
	}}, nil)
	runID := f.start(t, "catbuddy.run", map[string]any{"command": "explain", "uri": f.uri})
	f.awaitTurnEnd(t, runID, 1)
	notes := filepath.Join(f.dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("DISK TEXT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.ed.OpenText(notes, "BUFFER TEXT, unsaved\n")

	f.reply(t, runID, "what do @notes.txt and @../outside.txt say?")
	if end := f.awaitTurnEnd(t, runID, 2); end.Outcome != "done" {
		t.Fatalf("reply ended %+v", end)
	}
	got := f.model.Requests()[1].LastUserText()
	for _, want := range []string{"what do @notes.txt and @../outside.txt say?", "## Mentioned files", "File notes.txt (mentioned as @notes.txt), as the user sees it:", "     1\tBUFFER TEXT, unsaved", "@../outside.txt: not readable:"} {
		if !strings.Contains(got, want) {
			t.Errorf("the reply lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "DISK TEXT") {
		t.Errorf("the reply has the disk's text, not the buffer's:\n%s", got)
	}
}
