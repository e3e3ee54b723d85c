package lspclient_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// TestChecksSeeTheRunsView: gopls's diagnostics of a file, asked under a
// run's view, are those of the run's pending text; asked without it,
// those of the user's (the disk). The answer comes once gopls has
// published for the text it was shown, well within the settle cap.
func TestChecksSeeTheRunsView(t *testing.T) {
	dir := writeProject(t, goProject)
	_, c := headless(t, dir)
	checks := c.Checks()
	calc := filepath.Join(dir, "calc", "calc.go")
	broken := strings.Replace(goProject["calc/calc.go"], "return a + b", "return a + totalMark", 1)
	view := tools.RunView{ID: "run-1", Workspace: tools.DiskWorkspace{}, Files: func() []tools.ViewFile {
		return []tools.ViewFile{{Path: calc, Read: func() ([]byte, error) { return []byte(broken), nil }}}
	}}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	user, err := checks.Diagnostics(ctx, calc)
	if err != nil || len(user) != 0 {
		t.Fatalf("the user's calc.go: %v (%v), want no diagnostics", user, err)
	}
	for range 3 { // the view, the user's text, the view again
		start := time.Now()
		ds, err := checks.Diagnostics(tools.WithRunView(ctx, view), calc)
		took := time.Since(start)
		t.Logf("the run's diagnostics after %v", took)
		if err != nil || len(ds) != 1 || ds[0].Message != "undefined: totalMark" || ds[0].Line != 4 || ds[0].Severity != "error" {
			t.Fatalf("the run's calc.go: %+v (%v), want undefined: totalMark on line 4", ds, err)
		}
		if took >= tools.SettleCap {
			t.Errorf("the run's diagnostics took %v, the settle cap", took)
		}
		if user, err := checks.Diagnostics(ctx, calc); err != nil || len(user) != 0 {
			t.Fatalf("the user's calc.go after the view: %v (%v), want no diagnostics", user, err)
		}
	}
	if got := checks.(tools.DiagnosticsChecker).Checker(ctx, calc); got != "gopls" {
		t.Errorf("checker %q, want gopls", got)
	}
	_, err = checks.Diagnostics(ctx, filepath.Join(dir, "lib.rs"))
	var unchecked *tools.UncheckedError
	if !errorsAs(err, &unchecked) || unchecked.Key != ".rs" {
		t.Errorf("a .rs file: %v, want it unchecked", err)
	}
	var none *lspclient.Client
	if _, err := none.Checks().Diagnostics(ctx, calc); !errorsAs(err, &unchecked) || unchecked.Key != ".go" {
		t.Errorf("no servers: %v, want .go unchecked", err)
	}
}

func errorsAs(err error, target **tools.UncheckedError) bool { return errors.As(err, target) }
