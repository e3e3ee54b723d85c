package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/sourcegraph/go-diff/diff"
)

//go:embed patch.md
var applyPatchDescription string

type applyPatchInput struct {
	Patch string `json:"patch" jsonschema:"a unified diff (git diff or diff -u format) or a *** Begin Patch patch, for one or more files"`
}

// ApplyPatch is the apply_patch tool: a unified diff for several files,
// checked whole before anything changes and sent to the editor as one
// reviewed change (all or nothing on disk).
func ApplyPatch(tc *ToolContext) Tool {
	return NewTool("apply_patch", applyPatchDescription, func(ctx context.Context, in applyPatchInput) (Result, error) {
		return tc.applyPatch(ctx, in)
	})
}

func (tc *ToolContext) applyPatch(ctx context.Context, in applyPatchInput) (Result, error) {
	if strings.TrimSpace(in.Patch) == "" {
		return Errorf("patch is empty: give a unified diff (--- a/FILE, +++ b/FILE, @@ hunks)"), nil
	}
	if isCodexPatch(in.Patch) {
		fds, err := parseCodexPatch(in.Patch)
		if err != nil {
			return Errorf("the *** Begin Patch patch is malformed: %v\nEach file starts with `*** Update File: PATH`, `*** Add File: PATH` or `*** Delete File: PATH`; an update's hunks start with `@@` and hold lines starting with ' ', '-' or '+'; the patch ends with `*** End Patch`. Nothing was applied.", err), nil
		}
		return tc.applyFileDiffs(ctx, fds)
	}
	fds, err := diff.ParseMultiFileDiff([]byte(in.Patch))
	if err != nil {
		return Errorf("the patch is not a valid unified diff: %v\nEach file needs `--- a/PATH` and `+++ b/PATH` lines, and each hunk a header `@@ -START,COUNT +START,COUNT @@` followed by lines starting with ' ', '-' or '+'. Nothing was applied.", err), nil
	}
	var fileDiffs []*diff.FileDiff
	for _, fd := range fds {
		if len(fd.Hunks) > 0 || fd.OrigName != "" || fd.NewName != "" {
			fileDiffs = append(fileDiffs, fd)
		}
	}
	if len(fileDiffs) == 0 {
		return Errorf("the patch holds no file: start each file with `--- a/PATH` and `+++ b/PATH`. Nothing was applied."), nil
	}
	return tc.applyFileDiffs(ctx, fileDiffs)
}

// applyFileDiffs checks every file of a parsed patch and commits them as
// one reviewed change, or none.
func (tc *ToolContext) applyFileDiffs(ctx context.Context, fileDiffs []*diff.FileDiff) (Result, error) {
	var (
		cs      []Change
		seen    = map[string]bool{}
		warning []string
	)
	for _, fd := range fileDiffs {
		c, warn, err := tc.patchChange(ctx, fd)
		if err != nil {
			return Errorf("%v\nNothing was applied.", err), ctx.Err()
		}
		if seen[c.Path.Abs] {
			return Errorf("%s appears twice in the patch: give all of a file's hunks under one --- / +++ header. Nothing was applied.", c.Path.Rel), nil
		}
		seen[c.Path.Abs] = true
		if warn != "" {
			warning = append(warning, warn)
		}
		cs = append(cs, c)
	}
	return tc.commitAll(ctx, "apply_patch", cs, strings.Join(warning, "\n"))
}

// patchChange turns one file of the patch into a Change, checking every
// hunk against the file as the Workspace has it now.
func (tc *ToolContext) patchChange(ctx context.Context, fd *diff.FileDiff) (Change, string, error) {
	orig, newName := patchPath(fd.OrigName), patchPath(fd.NewName)
	switch {
	case orig == "" && newName == "":
		return Change{}, "", errors.New("a file in the patch has neither a --- nor a +++ path")
	case orig != "" && newName != "" && orig != newName:
		return Change{}, "", fmt.Errorf("renaming %s to %s is not supported: delete the old file (+++ /dev/null) and add the new one (--- /dev/null)", orig, newName)
	}
	name := newName
	if name == "" {
		name = orig
	}
	if len(fd.Hunks) == 0 && !wholeFileDiff(fd, codexNewFile) && !wholeFileDiff(fd, codexDeletedFile) {
		return Change{}, "", fmt.Errorf("%s: the patch has no hunk for this file", name)
	}
	p, err := tc.Resolve(name)
	if err != nil {
		return Change{}, "", fmt.Errorf("%s: %v", name, err)
	}
	c := Change{Path: p, Label: "apply_patch " + p.Rel}
	if orig == "" { // a new file: every hunk only adds
		if _, err := tc.Workspace.Read(ctx, p); err == nil {
			return Change{}, "", fmt.Errorf("%s: the patch creates it (--- /dev/null) but it already exists; patch it instead", name)
		} else if !errors.Is(err, ErrNotExist) {
			return Change{}, "", fmt.Errorf("%s: %v", name, err)
		}
		var b strings.Builder
		for i, h := range fd.Hunks {
			ph := parseHunk(h)
			if len(ph.old) > 0 {
				return Change{}, "", fmt.Errorf("%s hunk %d: the file is new (--- /dev/null), so the hunk may only add lines ('+')", name, i+1)
			}
			b.WriteString(ph.newText("\n", nil))
		}
		c.Create, c.After = true, []byte(b.String())
		c.Edits = []TextEdit{{NewText: b.String()}}
		return c, "", nil
	}
	doc, err := tc.Workspace.Read(ctx, p)
	if err != nil {
		return Change{}, "", fmt.Errorf("%s: %v", name, err)
	}
	if safefile.LooksBinary(doc.Content) {
		return Change{}, "", fmt.Errorf("%s is a binary file; apply_patch patches text files only", name)
	}
	edits, err := locateHunks(name, doc.Content, fd.Hunks)
	if err != nil {
		return Change{}, "", err
	}
	after, err := applyEdits(doc.Content, edits)
	if err != nil {
		return Change{}, "", fmt.Errorf("%s: %v", name, err)
	}
	c.Base = doc
	if wholeFileDiff(fd, codexDeletedFile) {
		c.Delete = true
		return c, tc.readWarning(ctx, "apply_patch", p.Abs), nil
	}
	if newName == "" { // deleted: the hunks must take out everything
		if len(after) != 0 {
			return Change{}, "", fmt.Errorf("%s: the patch deletes it (+++ /dev/null), but its hunks leave %d bytes; remove every line", name, len(after))
		}
		c.Delete = true
		return c, tc.readWarning(ctx, "apply_patch", p.Abs), nil
	}
	c.Edits, c.After = edits, after
	warn := tc.readWarning(ctx, "apply_patch", p.Abs)
	if warn != "" {
		warn = p.Rel + ": " + warn
	}
	return c, warn, nil
}

// patchPath strips a diff header path to the workspace path: "" for
// /dev/null, without the a/ or b/ prefix git adds, without a timestamp
// left by diff -u.
func patchPath(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "/dev/null" || s == "" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}
