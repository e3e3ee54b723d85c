package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// goplsLike reports what a language server would for calc.go: an old
// warning that is always there, and an error while "total" is used.
func goplsLike(u uri.URI, text string) []protocol.Diagnostic {
	diag := func(line, col uint32, sev protocol.DiagnosticSeverity, src, msg string) protocol.Diagnostic {
		return protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: line, Character: col}, End: protocol.Position{Line: line, Character: col + 5}},
			Severity: sev, Source: protocol.NewOptional(src), Message: protocol.String(msg),
		}
	}
	out := []protocol.Diagnostic{diag(2, 0, protocol.DiagnosticSeverityWarning, "staticcheck", "comment on exported function Add should be of the form")}
	if strings.Contains(text, "return total") {
		out = append(out, diag(4, 8, protocol.DiagnosticSeverityError, "gopls", "undefined: total"))
		out = append(out, diag(4, 8, protocol.DiagnosticSeverityHint, "gopls", "a hint is not reported"))
	}
	return out
}

func breakingEdit() agenttest.Turn {
	return agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{
		"path": "calc.go", "old_string": "return a - b", "new_string": "return total",
	}))
}

func TestEditResultNamesNewDiagnostics(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{breakingEdit(), agenttest.TextTurn("I broke it.")}}, nil)
	f.ed.SetDiagnostics(goplsLike)

	end := f.awaitEnd(t, f.start(t, "catbuddy.fix", f.fixArgs()))
	if end.Outcome != "done" {
		t.Fatalf("end = %+v", end)
	}
	results := f.model.Requests()[1].ToolResults()
	if len(results) != 1 {
		t.Fatalf("%d tool results, want 1", len(results))
	}
	got := results[0].Content
	if !strings.Contains(got, "Edited calc.go (+1 -1)") || !strings.HasSuffix(got, "\nAfter this edit, gopls reports:\ncalc.go:5:9 error: undefined: total (new)") {
		t.Errorf("edit result does not end with the new error:\n%s", got)
	}
	if strings.Contains(got, "comment on exported") || strings.Contains(got, "hint") {
		t.Errorf("edit result repeats an old warning or reports a hint:\n%s", got)
	}
	if asks := f.ed.DiagnosticsRequests(); len(asks) != 2 || asks[0] != f.uri || asks[1] != f.uri {
		t.Errorf("diagnostics asked for %v, want calc.go before and after the edit", asks)
	}
}

// TestDiagnosticsRequestCarriesTheSettleRule: every catbuddy/diagnostics
// request names the rule's durations (docs/PROTOCOL.md), so the clients
// wait as the server says instead of keeping their own copy.
func TestDiagnosticsRequestCarriesTheSettleRule(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{breakingEdit(), agenttest.TextTurn("I broke it.")}}, nil)
	f.ed.SetDiagnostics(goplsLike)
	if end := f.awaitEnd(t, f.start(t, "catbuddy.fix", f.fixArgs())); end.Outcome != "done" {
		t.Fatalf("end = %+v", end)
	}
	out, _ := f.ed.RunTool("diagnostics", map[string]any{"path": "calc.go"})
	if !strings.Contains(out, "undefined: total") {
		t.Fatalf("diagnostics tool: %s", out)
	}
	sent := f.ed.DiagnosticsParams()
	if len(sent) != 3 {
		t.Fatalf("%d requests, want 3 (before and after the edit, the tool)", len(sent))
	}
	want := map[string]any{"uri": string(f.uri), "settle": map[string]any{"quietMs": 750.0, "capMs": 2000.0}}
	for i, raw := range sent {
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(want, got) {
			t.Errorf("request %d params: %s, want %v", i, raw, want)
		}
	}
}

func TestEditResultWithoutClientDiagnostics(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		breakingEdit(),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return total", "new_string": "return a + b"})),
		agenttest.TextTurn("done"),
	}}, nil)
	// The fake answers MethodNotFound, as a client without the request.

	end := f.awaitEnd(t, f.start(t, "catbuddy.fix", f.fixArgs()))
	if end.Outcome != "done" {
		t.Fatalf("end = %+v", end)
	}
	for i, r := range f.model.Requests()[1:] {
		res := r.ToolResults()
		got := res[len(res)-1].Content
		if strings.Contains(got, "After this edit") || !strings.HasPrefix(got, "Edited calc.go (+1 -1)") {
			t.Errorf("edit %d result changed by a client without diagnostics:\n%s", i+1, got)
		}
	}
	if got := f.ed.Text(f.uri); !strings.Contains(got, "return a + b") {
		t.Errorf("buffer:\n%s", got)
	}
	// Asked once (before the first edit); never again on this connection.
	if asks := f.ed.DiagnosticsRequests(); len(asks) != 1 {
		t.Errorf("diagnostics asked %d times, want 1", len(asks))
	}
}

func TestDiagnosticsTool(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{}, nil)
	f.ed.SetDiagnostics(goplsLike)
	f.ed.Replace(f.uri, "return a - b", "return total")

	out, isErr := f.ed.RunTool("diagnostics", map[string]any{"path": "calc.go"})
	want := "calc.go:3:1 warning: comment on exported function Add should be of the form (staticcheck)\n" +
		"calc.go:5:9 error: undefined: total (gopls)\n" +
		"calc.go:5:9 hint: a hint is not reported (gopls)"
	if isErr || out != want {
		t.Errorf("diagnostics(calc.go) = %q (error %v), want %q", out, isErr, want)
	}
	all, _ := f.ed.RunTool("diagnostics", map[string]any{})
	if all != want {
		t.Errorf("diagnostics() over the open files = %q, want %q", all, want)
	}
}
