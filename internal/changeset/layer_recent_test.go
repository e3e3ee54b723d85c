package changeset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExecNotCreditedWithTheRunsRecentEdit: a file the run edited just
// before a command (its change time within the clock's slack of the
// command's start: here, ahead of it) is reported as the command's only
// when the command changed it.
func TestExecNotCreditedWithTheRunsRecentEdit(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"calc.go": calc, "other.go": "package calc\n"})
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	fx.edit(fx.view, "other.go", "package calc", "package calc // edited")
	ahead := time.Now().Add(2 * time.Second)
	for _, rel := range []string{"calc.go", "other.go"} {
		upper := filepath.Join(fx.set.folders[fx.root].layer.Upper, rel)
		if err := os.Chtimes(upper, ahead, ahead); err != nil {
			t.Fatal(err)
		}
	}
	out := fx.exec("grep -c 'return 10' calc.go", false)
	if strings.Contains(out, "Pending the user's review") {
		t.Fatalf("a command that wrote nothing is credited with the run's edit:\n%s", out)
	}
	out = fx.exec("sed -i 's/return 2/return 20/' calc.go", false)
	if !strings.Contains(out, "Pending the user's review: changed calc.go") || strings.Contains(out, "other.go") {
		t.Fatalf("the command's own change is not reported, or the run's edit is:\n%s", out)
	}
}
