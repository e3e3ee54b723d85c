package headless

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/tools"
)

func feed(p *progress) {
	p.event(agent.Event{Kind: agent.EventStep, Step: 1})
	p.event(agent.Event{Kind: agent.EventText, Step: 1, Text: "Reading it."})
	p.event(agent.Event{Kind: agent.EventToolCall, Step: 1, Tool: "read_file", Args: json.RawMessage(`{"path":"calc.go"}`)})
	p.event(agent.Event{Kind: agent.EventToolResult, Step: 1, Tool: "read_file", Output: "…"})
	p.event(agent.Event{Kind: agent.EventStep, Step: 2})
	p.event(agent.Event{Kind: agent.EventToolCall, Step: 2, Tool: "edit_file", Args: json.RawMessage(`{"path":"calc.go"}`)})
	p.event(agent.Event{Kind: agent.EventToolResult, Step: 2, Tool: "edit_file",
		Edits: []tools.EditInfo{{Rel: "calc.go", Added: 1, Removed: 1, Diff: "-a\n+b\n"}}})
	p.event(agent.Event{Kind: agent.EventToolCall, Step: 2, Tool: "grep", Args: json.RawMessage(`{"path":".","pattern":"Add("}`)})
	p.event(agent.Event{Kind: agent.EventToolResult, Step: 2, Tool: "grep", IsError: true, Output: "Error: bad pattern\nmore"})
	p.done()
}

func TestProgressOnTerminalRewritesOneStatusLine(t *testing.T) {
	var b strings.Builder
	feed(newProgress(&b, true, 30))
	out := b.String()
	for _, s := range []string{"\r\033[Kstep 1/30 · thinking…", "\r\033[Kstep 2/30 · edit_file calc.go", "  edited calc.go +1 -1\n    -a\n    +b\n", "  grep failed: Error: bad pattern\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("terminal output lacks %q:\n%q", s, out)
		}
	}
	if last := out[strings.LastIndex(out, "step "):]; !strings.Contains(last, "\r\033[K") {
		t.Errorf("the last status line is left on screen: %q", last)
	}
}

func TestProgressPlainLines(t *testing.T) {
	var b strings.Builder
	feed(newProgress(&b, false, 30))
	want := "  Reading it.\n[1] read_file calc.go\n[2] edit_file calc.go\n  edited calc.go +1 -1\n    -a\n    +b\n[2] grep Add(\n  grep failed: Error: bad pattern\n"
	if got := b.String(); got != want {
		t.Errorf("plain output:\n%q\nwant:\n%q", got, want)
	}
}

// TestProgressLanguageServers: without a terminal each kind of language
// server status is printed once (not every second of indexing), and a
// withdrawal always; on a terminal they go to the status line.
func TestProgressLanguageServers(t *testing.T) {
	lines := []struct {
		text      string
		permanent bool
	}{
		{"starting gopls…", false}, {"gopls: indexing (1 s)", false}, {"gopls: indexing (2 s)", false},
		{"gopls: ready", false}, {"the language server tsls cannot answer: …", true},
	}
	var plain, tty strings.Builder
	p, q := newProgress(&plain, false, 30), newProgress(&tty, true, 30)
	for _, l := range lines {
		p.language(l.text, l.permanent)
		q.language(l.text, l.permanent)
	}
	want := "  starting gopls…\n  gopls: indexing (1 s)\n  gopls: ready\n  the language server tsls cannot answer: …\n"
	if got := plain.String(); got != want {
		t.Errorf("plain output:\n%q\nwant:\n%q", got, want)
	}
	if out := tty.String(); !strings.Contains(out, "\r\033[Kgopls: indexing (2 s)") || !strings.Contains(out, "  the language server tsls cannot answer") {
		t.Errorf("terminal output: %q", out)
	}
}
