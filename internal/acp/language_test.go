package acp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// An ACP client has no bridge to its own language servers, so the
// languageServers setting answers the language tools: gopls finds the
// definition, and its rename is one reviewed question written through
// the client.
func TestLanguageServersAnswerTheLanguageTools(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "the ACP language tools test", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("lsp", map[string]any{"operation": "definition", "path": "main.go", "line": 6, "symbol": "Add"})),
		agenttest.CallTurn(agenttest.Call("rename_symbol", map[string]any{"path": "calc.go", "line": 4, "symbol": "Add", "new_name": "Sum"})),
		agenttest.TextTurn("Renamed Add to Sum."),
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
	c.answer = allow
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "rename Add to Sum", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	for _, name := range []string{"lsp", "rename_symbol"} {
		if !strings.Contains(strings.Join(reqs[0].ToolNames(), ","), name) {
			t.Errorf("the model was not offered %s: %v", name, reqs[0].ToolNames())
		}
	}
	if res := reqs[1].ToolResults(); len(res) == 0 || !strings.Contains(res[0].Content, "calc.go:4: func Add(a, b int) int { return a + b }") {
		t.Errorf("definition answered %+v", res)
	}
	if len(c.perms) != 1 {
		t.Fatalf("%d permission questions for the rename, want 1", len(c.perms))
	}
	var kinds []string
	for _, tc := range c.toolCalls() {
		kinds = append(kinds, tc.Title+"="+string(tc.Kind))
	}
	slices.Sort(kinds)
	if got := strings.Join(kinds, ", "); got != "lsp=read, rename_symbol=edit" {
		t.Errorf("tool calls %s, want lsp=read, rename_symbol=edit", got)
	}
	calc, main := filepath.Join(root, "calc.go"), filepath.Join(root, "main.go")
	if !strings.Contains(c.writes[calc], "func Sum(a, b int) int") || !strings.Contains(c.writes[main], "fmt.Println(Sum(1, 2))") {
		t.Errorf("the rename wrote calc.go %q, main.go %q", c.writes[calc], c.writes[main])
	}
}
