package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// usePkg is a second package of calcGo's module that calls Add.
const usePkg = "package use\n\nimport \"example.com/calc\"\n\n// Use adds.\nfunc Use() int { return calc.Add(1, 2) }\n"

// TestPendingLanguageToolsOnTheRunsView: in the editor, a run's edits to
// calc.go and use/use.go are pending, so the editor's servers (the fake
// editor's bridge, which fails the test if asked) cannot answer about
// them. gopls, started by cb-ls for the run's view, answers instead, on
// the run's text: the outline of calc.go lists the run's new Twice; a
// rename of Twice reaches its call in the other package; code_action on
// a line with a new error offers gopls's fix, and applying it lands
// pending; replace_symbol replaces Add in the pending file. Every change
// is pending: the user's buffer and disk are as they were until the run
// is kept, and then hold exactly the run's text.
func TestPendingLanguageToolsOnTheRunsView(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "the language tools on the run's view in the editor", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	needsLayer(t)
	call := agenttest.Call
	rec := newLogRecorder()
	f := newRunFixtureWith(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": "calc.go", "old_string": "// Add returns a plus b.",
			"new_string": "// Twice returns x + x.\nfunc Twice(x int) int { return Add(x, x) }\n\n// Add returns a plus b."})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": "use/use.go"})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": "use/use.go", "old_string": "return calc.Add(1, 2)", "new_string": "return calc.Twice(1) + calc.Add(1, 2)"})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "document_symbols", "path": "calc.go"})),
		agenttest.CallTurn(call("rename_symbol", map[string]any{"path": "calc.go", "line": 4, "symbol": "Twice", "new_name": "Double"})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": "use/use.go", "old_string": "// Use adds.", "new_string": "// Use adds.\nfunc Half(x int) int { return halve(x) }\n\n// Use adds too."})),
		agenttest.CallTurn(call("code_action", map[string]any{"path": "use/use.go", "line": 6})),
		agenttest.CallTurn(call("code_action", map[string]any{"path": "use/use.go", "line": 6, "title": "Create function halve"})),
		agenttest.CallTurn(call("replace_symbol", map[string]any{"path": "calc.go", "symbol": "Add", "new_text": "func Add(a, b int) int {\n\treturn a + b\n}"})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": "use/use.go"})),
		agenttest.TextTurn("Done."),
	}}, func(o *fake.Options, init map[string]any) {
		init["maxSteps"] = 20
		o.PendingChanges = true
		o.Server.Logger = slog.New(rec)
		o.Capabilities = func(c *protocol.ClientCapabilities) {
			c.Experimental, _ = json.Marshal(map[string]any{"catbuddy": map[string]any{"languageFeatures": allFeatures, "pendingChanges": true}})
		}
	})
	use := filepath.Join(f.dir, "use", "use.go")
	for p, text := range map[string]string{filepath.Join(f.dir, "go.mod"): "module example.com/calc\n\ngo 1.22\n", use: usePkg} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.ed.SetLanguageFeatures(func(_ context.Context, method string, params json.RawMessage) (any, error) {
		t.Errorf("the editor's servers were asked %s %s, which the run's view answers", method, params)
		return nil, nil
	})
	runID := f.start(t, "catbuddy.run", map[string]any{"command": "ask", "input": "add Twice"})
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	reqs := f.model.Requests()
	results := reqs[len(reqs)-1].ToolResults()
	if len(results) != 12 {
		t.Fatalf("%d tool results, want 12: %+v", len(results), results)
	}
	for i, r := range results {
		t.Logf("result %d:\n%s", i, r.Content)
	}
	outline, rename, actions, applied, replace := results[4].Content, results[5].Content, results[7].Content, results[8].Content, results[9].Content
	if !strings.Contains(outline, "Twice") || !strings.Contains(outline, "Add") {
		t.Errorf("the outline of the pending calc.go lacks the run's Twice:\n%s", outline)
	}
	if !strings.Contains(rename, "Rename of Twice to Double:") || !strings.Contains(rename, "2 files") || !strings.Contains(rename, "pending the user's review") {
		t.Errorf("the rename across calc.go and use/use.go:\n%s", rename)
	}
	if !strings.Contains(results[6].Content, "undefined: halve") {
		t.Errorf("the edit that breaks the build does not name gopls's new error:\n%s", results[6].Content)
	}
	if !strings.Contains(actions, "- Create function halve [quickfix]") {
		t.Errorf("code_action on the new error does not offer gopls's fix:\n%s", actions)
	}
	if !strings.Contains(applied, "Edited use/use.go") || !strings.Contains(applied, "pending the user's review") {
		t.Errorf("applying gopls's fix:\n%s", applied)
	}
	if !strings.Contains(replace, "pending the user's review") {
		t.Errorf("replace_symbol of Add in the pending calc.go:\n%s", replace)
	}
	calcView, useView := results[10].Content, results[11].Content
	for _, want := range []string{"func Double(x int) int { return Add(x, x) }", "return a + b"} {
		if !strings.Contains(calcView, want) {
			t.Errorf("the run's calc.go lacks %q:\n%s", want, calcView)
		}
	}
	for _, want := range []string{"return calc.Double(1) + calc.Add(1, 2)", "func halve(x int) int {"} {
		if !strings.Contains(useView, want) {
			t.Errorf("the run's use/use.go lacks %q:\n%s", want, useView)
		}
	}
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("the user's buffer of calc.go changed while pending:\n%s", got)
	}
	if got, _ := os.ReadFile(use); string(got) != usePkg {
		t.Errorf("the user's use/use.go changed while pending:\n%s", got)
	}

	// The run view's gopls is in the status, with its memory, and in the
	// log after the turn.
	var status struct {
		LanguageServers []struct {
			Server  string `json:"server"`
			PID     int    `json:"pid"`
			RSS     int64  `json:"rss"`
			RunView bool   `json:"runView"`
			Text    string `json:"text"`
		} `json:"languageServers"`
	}
	if err := f.ed.ExecuteCommand("catbuddy.status", nil, &status); err != nil {
		t.Fatalf("catbuddy.status: %v", err)
	}
	if ls := status.LanguageServers; len(ls) != 1 || ls[0].Server != "gopls" || !ls[0].RunView || ls[0].PID <= 0 || ls[0].RSS <= 0 ||
		!strings.HasPrefix(ls[0].Text, fmt.Sprintf("gopls (pid %d): ", ls[0].PID)) || !strings.HasSuffix(ls[0].Text, " MB resident (run view)") {
		t.Errorf("catbuddy.status's language servers %+v, want the run view's gopls with its memory", ls)
	} else {
		rec.await(t, "language servers after a turn", "run="+runID, ls[0].Text[:strings.Index(ls[0].Text, ":")])
	}

	// Kept, the user's files hold the run's text.
	if res, err := f.ed.Keep(runID, nil, nil); err != nil || len(res.Left) != 0 {
		t.Fatalf("keep the run = %+v, %v", res, err)
	}
	if got := f.ed.Text(f.uri); got != numberless(calcView) {
		t.Errorf("calc.go kept:\n%s\nwant the run's:\n%s", got, calcView)
	}
	if got := f.contents(map[string]string{"use/use.go": ""})["use/use.go"]; got != numberless(useView) {
		t.Errorf("use/use.go kept:\n%s\nwant the run's:\n%s", got, useView)
	}
}

// numberless is the text of a whole file as read_file shows it, without
// its line numbers.
func numberless(out string) string {
	var b strings.Builder
	for line := range strings.Lines(out) {
		if _, text, ok := strings.Cut(line, "\t"); ok {
			b.WriteString(strings.TrimSuffix(text, "\n") + "\n")
		}
	}
	return b.String()
}
