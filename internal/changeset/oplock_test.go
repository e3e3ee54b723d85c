package changeset

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// TestKeepWaitsForAnotherProcessCommand: a keep from a second Store
// (another process: `cb-ls changes --keep` beside the editor's server)
// waits while a command of the first runs over the layer, so no swap the
// command makes can come between the keep's checks and its writes; once
// the command ended, the keep takes in what the command made and keeps
// it too.
func TestKeepWaitsForAnotherProcessCommand(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	other, err := Open(fx.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs, ok := other.Get("run-1")
	if !ok {
		t.Fatal("the second store does not see the run's set")
	}

	layer := fx.set.Layer(tools.DiskWorkspace{})
	layers, err := layer.Prepare(t.Context(), []string{fx.root})
	if err != nil {
		t.Fatal(err)
	}
	// What a command writes while it runs.
	if err := layers[0].WriteFile("gen.txt", []byte("made\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := theirs.Keep(ctx, Selection{}, tools.DiskWorkspace{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a keep during another process's command: %v, want it to wait (deadline exceeded)", err)
	}
	if fx.disk("calc.go") != calc {
		t.Fatal("the keep wrote while the command ran")
	}
	if _, err := layer.Collect(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, err := theirs.Keep(t.Context(), Selection{}, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Left) != 0 {
		t.Fatalf("left: %+v", res.Left)
	}
	if got := fx.disk("calc.go"); !strings.Contains(got, "return 10") {
		t.Errorf("calc.go = %q, want the run's edit kept", got)
	}
	if got := fx.disk("gen.txt"); got != "made\n" {
		t.Errorf("gen.txt = %q: the keep did not take in what the command made", got)
	}
	// The first store takes in the keep at its next operation: nothing
	// is pending, nothing is kept twice.
	if _, err := fx.set.Discard(Selection{}); err != nil {
		t.Fatal(err)
	}
	if files := fx.set.Files(); len(files) != 0 {
		t.Errorf("the first store still lists %d files after the other's keep", len(files))
	}
	if got := fx.disk("calc.go"); !strings.Contains(got, "return 10") {
		t.Errorf("the first store's discard undid the kept text: %q", got)
	}
}
