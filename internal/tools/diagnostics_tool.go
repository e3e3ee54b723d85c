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
	Path string `json:"path,omitempty" jsonschema:"the file (default: every open file)"`
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
		paths = tc.Diagnostics.OpenFiles()
		slices.Sort(paths)
		if len(paths) == 0 {
			return Text("No file is open in the editor; give a path."), nil
		}
	}
	var b strings.Builder
	listed, clean, stopped := 0, 0, false
	for _, abs := range paths {
		p, err := tc.Resolve(abs)
		if err != nil {
			continue // an open file outside the workspace
		}
		ds, err := tc.Diagnostics.Diagnostics(ctx, abs)
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
	return Text(strings.TrimRight(b.String(), "\n")), nil
}
