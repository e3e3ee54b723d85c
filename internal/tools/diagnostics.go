package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Diagnostic is one problem the editor's language features report for a
// document, from any source (a language server, a linter, a compiler).
type Diagnostic struct {
	Line     int    `json:"line"` // 1-based
	Column   int    `json:"column,omitempty"`
	Severity string `json:"severity,omitempty"` // error, warning, info, hint
	Source   string `json:"source,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
}

// DiagnosticsSource tells the diagnostics of documents as the editor sees
// them, every source together. The LSP layer implements it by asking the
// client; without an editor there is none.
type DiagnosticsSource interface {
	// Diagnostics returns the current diagnostics of the file at the
	// absolute path, once they have settled after a recent change. It
	// returns an error wrapping ErrNoDiagnostics when the editor cannot
	// tell.
	Diagnostics(ctx context.Context, path string) ([]Diagnostic, error)
	// OpenFiles lists the absolute paths of the editor's open documents.
	OpenFiles() []string
}

// ErrNoDiagnostics is wrapped when the editor does not report
// diagnostics (it does not implement the request, answers it null, or
// answered with an error). It never means "no diagnostics".
var ErrNoDiagnostics = errors.New("this editor does not report diagnostics to cb-ls")

// maxNewDiagnostics bounds the diagnostics added to an edit's result.
const maxNewDiagnostics = 20

// diagnosticsBefore returns the diagnostics of path before an edit, and
// false when there will be no report for this edit (no source, the
// editor cannot tell, a new file).
func (tc *ToolContext) diagnosticsBefore(ctx context.Context, c Change) ([]Diagnostic, bool) {
	if tc.Diagnostics == nil {
		return nil, false
	}
	if c.Create {
		return nil, true
	}
	before, err := tc.Diagnostics.Diagnostics(ctx, c.Path.Abs)
	return before, err == nil
}

// diagnosticsReport returns the line added to an edit's result: the
// errors and warnings of path after the edit that were not there before
// (compared by severity, source, code and message, since the edit moves
// lines), at most maxNewDiagnostics. It is "" when nothing is new or the
// editor cannot tell.
func (tc *ToolContext) diagnosticsReport(ctx context.Context, rel, path string, before []Diagnostic) string {
	after, err := tc.Diagnostics.Diagnostics(ctx, path)
	if err != nil {
		return ""
	}
	fresh := newProblems(before, after)
	if len(fresh) == 0 {
		return ""
	}
	var b strings.Builder
	who := sourcesOf(fresh)
	verb := "reports"
	if strings.Contains(who, " and ") {
		verb = "report"
	}
	fmt.Fprintf(&b, "After this edit, %s %s:", who, verb)
	for i, d := range fresh {
		if i == maxNewDiagnostics {
			fmt.Fprintf(&b, "\n… and %d more (the diagnostics tool lists them all)", len(fresh)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s (new)", formatDiagnostic(rel, d))
	}
	return b.String()
}

// newProblems returns the errors and warnings of after that before did
// not have, as a multiset: a second copy of an old message is new.
func newProblems(before, after []Diagnostic) []Diagnostic {
	seen := map[string]int{}
	for _, d := range before {
		seen[problemKey(d)]++
	}
	var out []Diagnostic
	for _, d := range after {
		if d.Severity != "error" && d.Severity != "warning" {
			continue
		}
		k := problemKey(d)
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

func problemKey(d Diagnostic) string {
	return d.Severity + "\x00" + d.Source + "\x00" + d.Code + "\x00" + d.Message
}

// sourcesOf names who reported ds: "gopls", "gopls and staticcheck", or
// "the editor" when no source is given.
func sourcesOf(ds []Diagnostic) string {
	var names []string
	for _, d := range ds {
		if d.Source != "" && !slices.Contains(names, d.Source) {
			names = append(names, d.Source)
		}
	}
	switch len(names) {
	case 0:
		return "the editor"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// formatDiagnostic renders d as "calc.go:12:3 error: message [code]".
func formatDiagnostic(rel string, d Diagnostic) string {
	sev := d.Severity
	if sev == "" {
		sev = "problem"
	}
	msg := strings.Join(strings.Fields(d.Message), " ")
	s := fmt.Sprintf("%s:%d:%d %s: %s", rel, d.Line, max(d.Column, 1), sev, msg)
	if d.Code != "" {
		s += " [" + d.Code + "]"
	}
	return s
}
