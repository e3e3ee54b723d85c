package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
)

// TestPendingSurvivesSIGKILL: the real binary is killed with SIGKILL
// while a run whose edit is pending waits for its model; a new server in
// the same folder finds the set and notifies it after initialized, and
// the file on disk never changed.
func TestPendingSurvivesSIGKILL(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir, calc := calcProject(t)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		{Stall: true}, // the run waits here when the server is killed
	}})
	params := fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{"experimental":{"catbuddy":{"pendingChanges":true}}},`+
		`"initializationOptions":{"provider":"openai","baseUrl":%q,"model":"scripted","apiKey":%q,"maxSteps":5}}`,
		fileuri.FromPath(dir), model.URL(), testKey)
	first := startWireWith(t, dir, params)
	first.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"run","method":"workspace/executeCommand","params":{"command":"catbuddy.run","arguments":[{"command":"ask","uri":%q,"input":"fix Add"}]}}`,
		fileuri.FromPath(calc)))
	var started struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal(first.await("run")["result"], &started); err != nil || started.RunID == "" {
		t.Fatalf("catbuddy.run: %v", err)
	}
	pendingOf := func(p *wireProc, what string) lsp.PendingChangesParams {
		var got lsp.PendingChangesParams
		p.awaitFrame(what, func(m map[string]json.RawMessage, _ []byte) bool {
			if string(m["method"]) != `"`+lsp.MethodPendingChanges+`"` {
				return false
			}
			var n lsp.PendingChangesParams
			if json.Unmarshal(m["params"], &n) != nil || n.RunID != started.RunID {
				return false
			}
			got = n
			return len(n.Files) == 1 && n.Files[0].Path == "calc.go"
		})
		return got
	}
	before := pendingOf(first, "the run's pending edit")
	if _, err := model.WaitRequests(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait(10 * time.Second)

	second := startWireWith(t, dir, params)
	after := pendingOf(second, "the set found again after the restart")
	if len(after.Files[0].Hunks) != 1 || after.Files[0].Hunks[0].ID != before.Files[0].Hunks[0].ID {
		t.Errorf("after the restart: %+v, want the hunk of before: %+v", after.Files, before.Files)
	}
	if disk, _ := os.ReadFile(calc); string(disk) != calcGo {
		t.Errorf("calc.go changed on disk:\n%s", disk)
	}
}
