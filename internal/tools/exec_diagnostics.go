package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// A command that writes (a generator, a formatter, a codemod) can break
// the build as an edit can, so its result names the new problems of the
// files it changed in the run's view, as an edit's does. What each file
// had before is what the servers last checked, taken before the command
// runs; a file they did not have open held the user's text, which is
// checked after the command, before the run's.

// maxExecChecked bounds how many files a command changed are checked.
const maxExecChecked = 10

// execChecksBefore returns what the servers know of the run's files
// before a command runs, or nil when tc's source cannot tell at once
// (the editor: a command's files are not checked).
func (tc *ToolContext) execChecksBefore(ctx context.Context) map[string][]Diagnostic {
	k, ok := tc.Diagnostics.(DiagnosticsKnower)
	if !ok || tc.Diagnostics == nil {
		return nil
	}
	return k.Known(ctx, tc.Diagnostics.OpenFiles(ctx))
}

// execChecksReport names the new problems of the files among changed
// (absolute) that the run's view holds, at most maxExecChecked of them;
// "" when nothing is new.
func (tc *ToolContext) execChecksReport(ctx context.Context, changed []string, before map[string][]Diagnostic) string {
	if before == nil {
		return ""
	}
	v, _ := RunViewFrom(ctx)
	var files []ViewFile
	if v.Files != nil {
		for _, f := range v.Files() {
			if !f.Deleted && slices.Contains(changed, f.Path) {
				files = append(files, f)
			}
		}
	}
	return tc.checkFiles(ctx, files, before)
}

// execDiskChecksReport is execChecksReport for a command that wrote the
// workspace itself (no run's layer): the files it created or changed are
// read from the Workspace. Their text before the command, where no server
// had them open, is not known any more: those are not compared.
func (tc *ToolContext) execDiskChecksReport(ctx context.Context, changes []ExecChange, before map[string][]Diagnostic) string {
	if before == nil {
		return ""
	}
	var files []ViewFile
	for _, c := range changes {
		if c.Kind == "deleted" {
			continue
		}
		if _, known := before[c.Path]; !known && c.Kind != "created" {
			continue
		}
		if _, ok := before[c.Path]; !ok {
			before[c.Path] = nil // created: nothing before
		}
		p, err := tc.Resolve(c.Path)
		if err != nil {
			continue
		}
		files = append(files, ViewFile{Path: c.Path, Read: func() ([]byte, error) {
			doc, err := tc.Workspace.Read(ctx, p)
			return doc.Content, err
		}})
	}
	return tc.checkFiles(ctx, files, before)
}

// checkFiles names the new problems of files (their text after a
// command) over before.
func (tc *ToolContext) checkFiles(ctx context.Context, files []ViewFile, before map[string][]Diagnostic) string {
	var out []string
	checked := 0
	for _, f := range files {
		p, err := tc.Resolve(f.Path)
		if err != nil {
			continue
		}
		if checked == maxExecChecked {
			out = append(out, fmt.Sprintf("(%d more files the command changed were not checked: the diagnostics tool lists them)", len(files)-checked))
			break
		}
		after, err := f.Read()
		if err != nil {
			continue
		}
		old, ok := before[f.Path]
		if !ok {
			// Not open in a server before: the user's text, or nothing
			// for a file the command created.
			if doc, err := tc.Workspace.Read(ctx, p); err == nil {
				if old, err = tc.diagnosticsOf(ctx, f.Path, doc.Content); err != nil && slowNote(err) == "" {
					out = appendNote(out, tc.uncheckedNote(ctx, err))
					continue
				}
			}
		}
		now, err := tc.diagnosticsOf(ctx, f.Path, after)
		checked++
		if err != nil && slowNote(err) == "" {
			out = appendNote(out, tc.uncheckedNote(ctx, err))
			continue
		}
		out = appendNote(out, tc.newProblemsReport(ctx, p.Rel, f.Path, "After this command, in "+p.Rel, old, now))
		out = appendNote(out, strings.Replace(slowNote(err), "checking this", "checking "+p.Rel, 1))
	}
	return strings.Join(out, "\n")
}

func appendNote(out []string, s string) []string {
	if s == "" {
		return out
	}
	return append(out, s)
}
