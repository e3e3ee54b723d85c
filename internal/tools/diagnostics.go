package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
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
	// OpenFiles lists the absolute paths of the documents the
	// diagnostics tool lists without a path: the editor's open
	// documents, or the files of the run in ctx that the language
	// servers cb-ls started check.
	OpenFiles(ctx context.Context) []string
}

// ContentDiagnostics is a DiagnosticsSource that is told the file's text,
// as the run has it: the language servers cb-ls started, which see only
// what they are shown. An edit's diagnostics come from it with the
// file's text before the edit and after it.
type ContentDiagnostics interface {
	DiagnosticsOf(ctx context.Context, path string, content []byte) ([]Diagnostic, error)
}

// diagnosticsOf asks tc's source for path's diagnostics with content
// where it takes the text.
func (tc *ToolContext) diagnosticsOf(ctx context.Context, path string, content []byte) ([]Diagnostic, error) {
	if cd, ok := tc.Diagnostics.(ContentDiagnostics); ok {
		return cd.DiagnosticsOf(ctx, path, content)
	}
	return tc.Diagnostics.Diagnostics(ctx, path)
}

// DiagnosticsChecker is a DiagnosticsSource that can name who checks a
// file: the language server cb-ls started for it ("gopls"), whose
// diagnostics may come from several sources (gopls's "compiler").
type DiagnosticsChecker interface {
	Checker(ctx context.Context, path string) string
}

// DiagnosticsKnower is a DiagnosticsSource that can tell at once, without
// waiting for anything to settle, the diagnostics it last had of each of
// paths it has them for: what a command's changes are compared with.
type DiagnosticsKnower interface {
	Known(ctx context.Context, paths []string) map[string][]Diagnostic
}

// UncheckedError is a DiagnosticsSource's answer for a file nothing
// checks in the run's view (no language server for its language, or
// the one there is cannot answer): the edit's result says so, once per
// run and Key, so that the model never takes silence for "nothing new".
type UncheckedError struct {
	// Key is what the note is said once per run for: ".rs", "gopls".
	Key string
	// Note is the sentence: "no language server checks this run's .rs
	// files; build to check".
	Note string
}

func (e *UncheckedError) Error() string { return e.Note }

// SlowCheckError is a DiagnosticsSource's answer, beside the
// diagnostics it has, when the server that checks a file did not
// publish its check of the file's last change within SettleCap: what
// it has may be of the text before. A result says so rather than
// "nothing new".
type SlowCheckError struct {
	Server string
}

func (e *SlowCheckError) Error() string {
	return fmt.Sprintf("%s had not finished checking it after %s", e.Server, SettleCap)
}

// slowNote is the line for a check that did not finish in time.
func slowNote(err error) string {
	var slow *SlowCheckError
	if !errors.As(err, &slow) {
		return ""
	}
	return fmt.Sprintf("Note: %s had not finished checking this after %s; the diagnostics tool lists its problems once it has.", slow.Server, SettleCap)
}

// ErrNoDiagnostics is wrapped when the editor does not report
// diagnostics (it does not implement the request, answers it null, or
// answered with an error). It never means "no diagnostics".
var ErrNoDiagnostics = errors.New("this editor does not report diagnostics to cb-ls")

// The settle rule: a document's diagnostics count as settled when they
// changed after its last change, or when that change is SettleQuiet old;
// nobody waits more than SettleCap for them. Language servers usually
// publish within a few hundred milliseconds of a change (gopls,
// tsserver); the quiet period waits for one that is slower, and the cap
// bounds what an edit costs when a document's diagnostics never change.
// The editor's clients are sent it with every request (internal/lsp);
// the servers cb-ls starts are waited for by it (internal/lspclient).
const (
	SettleQuiet = 750 * time.Millisecond
	SettleCap   = 2 * time.Second
)

// maxNewDiagnostics bounds the diagnostics added to an edit's result.
const maxNewDiagnostics = 20

// diagnosticsBefore returns the diagnostics of path before an edit, and
// false when there will be no report for this edit (no source, the
// editor cannot tell). A new file has none; a file nothing checks is
// reported, to say so.
func (tc *ToolContext) diagnosticsBefore(ctx context.Context, c Change) ([]Diagnostic, bool) {
	if tc.Diagnostics == nil {
		return nil, false
	}
	if c.Create {
		return nil, true
	}
	before, err := tc.diagnosticsOf(ctx, c.Path.Abs, c.Base.Content)
	var unchecked *UncheckedError
	var slow *SlowCheckError
	return before, err == nil || errors.As(err, &unchecked) || errors.As(err, &slow)
}

// diagnosticsReport returns the line added to an edit's result: the
// errors and warnings of path after the edit that were not there before
// (compared by severity, source, code and message, since the edit moves
// lines), at most maxNewDiagnostics. It is "" when nothing is new or the
// editor cannot tell; where nothing checks the file, it says so once
// per run (UncheckedError).
func (tc *ToolContext) diagnosticsReport(ctx context.Context, rel, path string, content []byte, before []Diagnostic) string {
	after, err := tc.diagnosticsOf(ctx, path, content)
	if note := slowNote(err); note != "" {
		return strings.TrimPrefix(tc.newProblemsReport(ctx, rel, path, "After this edit", before, after)+"\n"+note, "\n")
	}
	if err != nil {
		return tc.uncheckedNote(ctx, err)
	}
	return tc.newProblemsReport(ctx, rel, path, "After this edit", before, after)
}

// newProblemsReport renders the problems of after that before did not
// have, headed "<when>, gopls reports:", or "" when there are none.
func (tc *ToolContext) newProblemsReport(ctx context.Context, rel, path, when string, before, after []Diagnostic) string {
	fresh := newProblems(before, after)
	if len(fresh) == 0 {
		return ""
	}
	var b strings.Builder
	who := sourcesOf(fresh)
	if c, ok := tc.Diagnostics.(DiagnosticsChecker); ok {
		if name := c.Checker(ctx, path); name != "" {
			who = name
		}
	}
	verb := "reports"
	if strings.Contains(who, " and ") {
		verb = "report"
	}
	fmt.Fprintf(&b, "%s, %s %s:", when, who, verb)
	for i, d := range fresh {
		if i == maxNewDiagnostics {
			fmt.Fprintf(&b, "\n… and %d more (the diagnostics tool lists them all)", len(fresh)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s (new)", formatDiagnostic(rel, d))
	}
	return b.String()
}

// uncheckedNote is the line for an edit whose file nothing checks
// (err is an UncheckedError), said once per run and key; "" for any
// other error, and when it was said.
func (tc *ToolContext) uncheckedNote(ctx context.Context, err error) string {
	var u *UncheckedError
	if !errors.As(err, &u) || !tc.firstInRun(ctx, "unchecked\x00"+u.Key) {
		return ""
	}
	return "Note: " + u.Note + "."
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
