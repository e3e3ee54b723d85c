package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// An ACP run's edit that breaks the build gets gopls's new error in its
// result, gopls being shown the run's text (its pending view, or what
// the client wrote under review "before"); the edit that fixes it names
// nothing new.
func TestEditResultNamesNewDiagnostics(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "the ACP diagnostics after an edit test", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	t.Run("pending", func(t *testing.T) {
		info := sandbox.Probe()
		testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
		editResultNamesNewDiagnostics(t, "")
	})
	t.Run("before", func(t *testing.T) { editResultNamesNewDiagnostics(t, "before") })
}

func editResultNamesNewDiagnostics(t *testing.T, review string) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + b", "new_string": "return a + totalMark"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + totalMark", "new_string": "return b + a"})),
		agenttest.TextTurn("Done."),
	}})
	root := env(t, srv, "openai", map[string]string{
		"go.mod":  "module example.com/sum\n\ngo 1.21\n",
		"calc.go": "package main\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n}\n",
	})
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`{"languageServers": {"gopls": {"command": ["gopls"], "extensions": [".go"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t)
	c.review = review
	c.answer = allow
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "change Add", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	result := func(i int) string {
		res := reqs[i].ToolResults()
		if len(res) == 0 {
			t.Fatalf("request %d carries no tool result", i)
		}
		return res[len(res)-1].Content
	}
	broke := result(2)
	if !strings.Contains(broke, "After this edit, gopls reports:") || !strings.Contains(broke, "calc.go:4:") ||
		!strings.Contains(broke, "error: undefined: totalMark") || !strings.Contains(broke, "(new)") {
		t.Errorf("the breaking edit's result:\n%s\nwant gopls's new error undefined: totalMark", broke)
	}
	if pending := strings.Contains(broke, "pending the user's review"); pending != (review == "") {
		t.Errorf("review %q, but the edit's result says\n%s", review, broke)
	}
	if fixed := result(3); strings.Contains(fixed, "reports") || strings.Contains(fixed, "Note:") || !strings.Contains(fixed, "calc.go") {
		t.Errorf("the fixing edit's result:\n%s\nwant the edit and nothing new", fixed)
	}
}
