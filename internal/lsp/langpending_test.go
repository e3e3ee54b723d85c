package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// TestPendingLinesMappedForTheEditorsServers: a run's pending edit adds
// three lines above Add in calc.go, and cb-ls runs no servers of its own
// for the run's view (runViewServers "off": with them, the run's view
// answers, TestPendingLanguageToolsOnTheRunsView). The editor's language
// servers know only the user's buffer, so the bridge asks them about the user's line
// of Add and maps their answer back to the run's lines, with a note; a
// position inside the pending hunk, the outline and a rename of the
// file with pending changes are refused with the reason, and never
// reach the editor; a file without pending changes is answered as it
// is, without a note.
func TestPendingLinesMappedForTheEditorsServers(t *testing.T) {
	needsLayer(t)
	call := agenttest.Call
	f := newRunFixtureWith(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(call("edit_file", map[string]any{"path": "calc.go", "old_string": "// Add returns a plus b.",
			"new_string": "// Sub returns a minus b.\nfunc Sub(a, b int) int { return a - b }\n\n// Add returns a plus b."})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 7, "symbol": "Add"})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "definition", "path": "calc.go", "line": 4, "symbol": "Sub"})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "document_symbols", "path": "calc.go"})),
		agenttest.CallTurn(call("rename_symbol", map[string]any{"path": "calc.go", "line": 7, "symbol": "Add", "new_name": "Plus"})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "definition", "path": "main.go", "line": 3, "symbol": "Add"})),
		agenttest.TextTurn("Done."),
	}}, func(o *fake.Options, init map[string]any) {
		init["maxSteps"] = 20
		init["runViewServers"] = "off"
		o.Capabilities = func(c *protocol.ClientCapabilities) {
			c.Experimental, _ = json.Marshal(map[string]any{"catbuddy": map[string]any{"languageFeatures": allFeatures, "pendingChanges": true}})
		}
	})
	main := filepath.Join(f.dir, "main.go")
	if err := os.WriteFile(main, []byte("package calc\n\nvar x = Add(1, 2)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.ed.SetLanguageFeatures(func(_ context.Context, method string, params json.RawMessage) (any, error) {
		p := decode[posParams](t, params)
		switch {
		case method == "textDocument/references" && pathOf(t, p.TextDocument.URI) == f.calc:
			if p.Position.Line != 3 || p.Position.Character != 5 {
				t.Errorf("references asked at %+v, want the user's line 4 (3:5)", p.Position)
			}
			// The declaration, the line below it, and the call in main.go.
			return []any{loc(f.calc, 3, 5, 8), loc(f.calc, 4, 1, 7), loc(main, 2, 8, 11)}, nil
		case method == "textDocument/definition" && pathOf(t, p.TextDocument.URI) == main:
			return []any{loc(f.calc, 3, 5, 8)}, nil
		}
		t.Errorf("the editor was asked %s %s", method, params)
		return nil, nil
	})
	runID := f.start(t, "catbuddy.run", map[string]any{"command": "ask", "input": "add Sub"})
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	reqs := f.model.Requests()
	results := reqs[len(reqs)-1].ToolResults()
	if len(results) != 6 {
		t.Fatalf("%d tool results, want 6: %+v", len(results), results)
	}
	for i, r := range results {
		t.Logf("result %d:\n%s", i, r.Content)
	}
	refs := results[1].Content
	for _, want := range []string{
		"Note: calc.go has this run's pending changes, which the editor's language servers do not see: its lines were mapped",
		"calc.go:7: func Add(a, b int) int {", "calc.go:8: return a - b", "main.go:3: var x = Add(1, 2)",
	} {
		if !strings.Contains(refs, want) {
			t.Errorf("references lack %q:\n%s", want, refs)
		}
	}
	for i, want := range map[int]string{
		2: "line 4 of calc.go is in this run's pending changes, which the editor's language servers do not see",
		3: "the outline of calc.go is not available while the file has this run's pending changes",
		4: "renaming a symbol in calc.go is not available while the file has this run's pending changes",
	} {
		if !strings.Contains(results[i].Content, want) {
			t.Errorf("result %d lacks %q:\n%s", i, want, results[i].Content)
		}
	}
	// replace_symbol finds its declaration in the outline: the refusal says what to use instead.
	if !strings.Contains(results[3].Content, "to replace a declaration (replace_symbol), use edit_file") {
		t.Errorf("the outline's refusal does not point replace_symbol at edit_file:\n%s", results[3].Content)
	}
	// main.go has no pending changes, but the answer points into calc.go.
	if def := results[5].Content; !strings.Contains(def, "calc.go:7: func Add(a, b int) int {") || !strings.Contains(def, "calc.go has this run's pending changes") {
		t.Errorf("the definition from main.go is not mapped into the run's view:\n%s", def)
	}
	var asked []string
	for _, r := range f.ed.LanguageFeatureRequests() {
		asked = append(asked, r.Method)
	}
	if strings.Join(asked, " ") != "textDocument/references textDocument/definition" {
		t.Errorf("the editor was asked %v, want only the references and the definition from main.go", asked)
	}
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("the user's buffer changed:\n%s", got)
	}
}
