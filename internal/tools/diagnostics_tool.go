package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
)

//go:embed diagnostics.md
var diagnosticsDescription string

type diagnosticsInput struct {
	Path string `json:"path,omitempty"`
}

// maxListedDiagnostics bounds the diagnostics tool's answer.
const maxListedDiagnostics = 100

// DiagnosticsTool is the diagnostics tool. RegisterBuiltins offers it
// only when tc has a source of diagnostics.
func DiagnosticsTool(tc *ToolContext) Tool {
	t := NewTool("diagnostics", diagnosticsDescription, func(ctx context.Context, in diagnosticsInput) (Result, error) {
		return tc.diagnostics(ctx, in)
	})
	t.ReadOnly = true
	return t
}

func (tc *ToolContext) diagnostics(ctx context.Context, in diagnosticsInput) (Result, error) {
	if tc.Diagnostics == nil {
		return Errorf("%v", ErrNoDiagnostics), nil
	}
	var paths []string
	if in.Path != "" {
		p, err := tc.Resolve(in.Path)
		if err != nil {
			return docError(in.Path, err), nil
		}
		paths = []string{p.Abs}
	} else {
		paths = tc.Diagnostics.OpenFiles(ctx)
		slices.Sort(paths)
		if len(paths) == 0 {
			return Text("No file is open (in the editor, or in the language servers cb-ls started); give a path."), nil
		}
	}
	var b strings.Builder
	var checkers []string // the servers that answered, when the source names them
	listed, clean, stopped := 0, 0, false
	for _, abs := range paths {
		p, err := tc.Resolve(abs)
		if err != nil {
			continue // an open file outside the workspace
		}
		ds, err := tc.Diagnostics.Diagnostics(ctx, abs)
		var slow *SlowCheckError
		if errors.As(err, &slow) {
			fmt.Fprintf(&b, "%s: %v; what it had before:\n", p.Rel, err)
			err = nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			if errors.Is(err, ErrNoDiagnostics) {
				return Errorf("%v", err), nil
			}
			fmt.Fprintf(&b, "%s: diagnostics not available: %v\n", p.Rel, err)
			continue
		}
		if c, ok := tc.Diagnostics.(DiagnosticsChecker); ok {
			if name := c.Checker(ctx, abs); name != "" && !slices.Contains(checkers, name) {
				checkers = append(checkers, name)
			}
		}
		if len(ds) == 0 {
			clean++
			if in.Path != "" {
				fmt.Fprintf(&b, "%s: no diagnostics.\n", p.Rel)
			}
			continue
		}
		for _, d := range ds {
			if listed == maxListedDiagnostics {
				stopped = true
				break
			}
			src := ""
			if d.Source != "" {
				src = " (" + d.Source + ")"
			}
			fmt.Fprintf(&b, "%s%s\n", formatDiagnostic(p.Rel, d), src)
			listed++
		}
	}
	if stopped {
		fmt.Fprintf(&b, "(stopped at %d diagnostics; give a path to see one file's)\n", maxListedDiagnostics)
	}
	if in.Path == "" && clean > 0 {
		fmt.Fprintf(&b, "%d other open file%s: no diagnostics.\n", clean, plural(clean))
	}
	out := strings.TrimRight(b.String(), "\n")
	if len(checkers) > 0 {
		view := "the files"
		if pending(ctx) {
			view = "this run's files, its pending changes included"
		}
		out = fmt.Sprintf("From %s (started by cb-ls), which see%s %s:\n%s", strings.Join(checkers, ", "), verbS(len(checkers)), view, out)
	}
	return Text(out), nil
}

// verbS is the -s of a verb whose subject is n things.
func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// DiagnosticsOfferer is a DiagnosticsSource that may check nothing at
// all (no language server is configured): the diagnostics tool is then
// not offered, though edits still say that nothing checks them.
type DiagnosticsOfferer interface {
	ChecksAnything() bool
}

// offersDiagnostics reports whether the diagnostics tool is offered
// over src.
func offersDiagnostics(src DiagnosticsSource) bool {
	if src == nil {
		return false
	}
	o, ok := src.(DiagnosticsOfferer)
	return !ok || o.ChecksAnything()
}
