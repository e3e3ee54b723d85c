package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// The user changes a line the run changed while the end-of-turn question
// is open: the keep leaves that hunk pending, and the thought that says
// so names the command that resolves it.
func TestPendingConflictNamesTheResolution(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, editThree(agenttest.TextTurn("Fixed all three.")))
	root := env(t, srv, "openai", threeFiles)
	c := newTestClient(t)
	c.review = ""
	calc := filepath.Join(root, "calc.go")
	c.answer = func(q sdk.RequestPermissionRequest) string {
		if err := os.WriteFile(calc, []byte(strings.Replace(threeFiles["calc.go"], "a - b }", "a - b } // mine", 1)), 0o644); err != nil {
			t.Error(err)
		}
		return allow(q)
	}
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "fix the arithmetic", ""); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var thoughts strings.Builder
	for _, u := range c.updates {
		if u.Update.AgentThoughtChunk != nil && u.Update.AgentThoughtChunk.Content.Text != nil {
			thoughts.WriteString(u.Update.AgentThoughtChunk.Content.Text.Text)
		}
	}
	if !strings.Contains(thoughts.String(), "the user changed lines at or next to line 3") || !strings.Contains(thoughts.String(), "--keep --conflicts=both|theirs|run|markers") {
		t.Errorf("no thought names the conflict and its resolution:\n%s", thoughts.String())
	}
}
