package lsp_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/hostile"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// TestPlantedSetsAtInitialize: an editor that opens a cloned project
// shipping change sets in the old in-project place (manifests naming
// files outside, a base linked to the user's keys, an upper linked
// elsewhere) starts cb-ls serve, and nothing outside the workspace
// changes; no planted set is announced as the user's; the user is told
// once, in a warning, that cb-ls does not read them.
func TestPlantedSetsAtInitialize(t *testing.T) {
	for _, capable := range []bool{false, true} {
		dir := t.TempDir()
		victims := hostile.PlantOldSets(t, dir)
		before := map[string]string{}
		for _, v := range victims {
			b, _ := os.ReadFile(v)
			before[v] = string(b)
		}
		ed := fake.New(t, fake.Options{Folders: []string{dir}, PendingChanges: capable})
		var warned string
		ed.Await("the warning about .catbuddy/runs", func() bool {
			for _, raw := range ed.Notifications(protocol.MethodWindowShowMessage) {
				var m protocol.ShowMessageParams
				if json.Unmarshal(raw, &m) == nil && strings.Contains(m.Message, ".catbuddy/runs/") {
					warned = m.Message
					return m.Type == protocol.MessageTypeWarning
				}
			}
			return false
		})
		if strings.Contains(warned, "Fix the failing test") || !strings.Contains(warned, "never reads") {
			t.Errorf("the warning: %q", warned)
		}
		if n := ed.Notifications("catbuddy/pendingChanges"); len(n) != 0 {
			t.Errorf("planted sets announced as pending: %s", n[0])
		}
		if err := ed.Shutdown(); err != nil {
			t.Fatal(err)
		}
		ed.Exit()
		for _, v := range victims {
			if b, err := os.ReadFile(v); err != nil || string(b) != before[v] {
				t.Errorf("%s = %q, %v; want it untouched", v, b, err)
			}
		}
		// The second start does not tell it again.
		ed = fake.New(t, fake.Options{Folders: []string{dir}, PendingChanges: capable})
		if err := ed.Shutdown(); err != nil {
			t.Fatal(err)
		}
		for _, raw := range ed.Notifications(protocol.MethodWindowShowMessage) {
			if strings.Contains(string(raw), ".catbuddy/runs/") {
				t.Errorf("told again at the next start: %s", raw)
			}
		}
		ed.Exit()
	}
}
