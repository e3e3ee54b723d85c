package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	godiff "github.com/sourcegraph/go-diff/diff"
)

//go:embed patch.md
var applyPatchDescription string

type applyPatchInput struct {
	Patch string `json:"patch"`
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
		files, err := parseCodexPatch(in.Patch)
		if err != nil {
			return Errorf("the *** Begin Patch patch is malformed: %v\nEach file starts with `*** Update File: PATH` (then `*** Move to: NEW` to rename it), `*** Add File: PATH` or `*** Delete File: PATH`; an update's hunks start with `@@` and hold lines starting with ' ', '-' or '+'; the patch ends with `*** End Patch`. Nothing was applied.", err), nil
		}
		return tc.applyFileDiffs(ctx, files)
	}
	fds, err := godiff.ParseMultiFileDiff([]byte(in.Patch))
	if err != nil {
		return Errorf("the patch is not a valid unified diff: %v\nEach file needs `--- a/PATH` and `+++ b/PATH` lines, and each hunk a header `@@ -START,COUNT +START,COUNT @@` followed by lines starting with ' ', '-' or '+'. Nothing was applied.", err), nil
	}
	var fileDiffs []patchFile
	for _, fd := range fds {
		if len(fd.Hunks) > 0 || fd.OrigName != "" || fd.NewName != "" {
			fileDiffs = append(fileDiffs, patchFile{fd: fd})
		}
	}
	if len(fileDiffs) == 0 {
		return Errorf("the patch holds no file: start each file with `--- a/PATH` and `+++ b/PATH`. Nothing was applied."), nil
	}
	return tc.applyFileDiffs(ctx, fileDiffs)
}

// applyFileDiffs checks every file of a parsed patch and commits them as
// one reviewed change, or none.
func (tc *ToolContext) applyFileDiffs(ctx context.Context, files []patchFile) (Result, error) {
	var (
		cs      []Change
		seen    = map[string]bool{}
		warning []string
	)
	for _, pf := range files {
		changes, warn, err := tc.patchChange(ctx, pf)
		if err != nil {
			return Errorf("%v\nNothing was applied.", err), ctx.Err()
		}
		for _, c := range changes {
			if seen[c.Path.Abs] {
				return Errorf("%s appears twice in the patch: give all of a file's hunks under one --- / +++ header. Nothing was applied.", c.Path.Rel), nil
			}
			seen[c.Path.Abs] = true
		}
		if warn != "" {
			warning = append(warning, warn)
		}
		cs = append(cs, changes...)
	}
	return tc.commitAll(ctx, "apply_patch", cs, strings.Join(warning, "\n"))
}

// patchChange turns one file of the patch into a Change, checking every
// hunk against the file as the Workspace has it now; a renamed file
// becomes two: the old one deleted, the new one created.
func (tc *ToolContext) patchChange(ctx context.Context, pf patchFile) ([]Change, string, error) {
	fd := pf.fd
	orig, newName := patchPath(fd.OrigName), patchPath(fd.NewName)
	if pf.codex != nil { // its paths are plain: a/ is a directory
		orig, newName = codexPath(fd.OrigName), codexPath(fd.NewName)
	}
	if orig == "" && newName == "" {
		return nil, "", errors.New("a file in the patch has neither a --- nor a +++ path")
	}
	name := newName
	if name == "" {
		name = orig
	}
	if len(fd.Hunks) == 0 && !wholeFileDiff(fd, codexNewFile) && !wholeFileDiff(fd, codexDeletedFile) && (orig == newName || pf.codex == nil) {
		return nil, "", fmt.Errorf("%s: the patch has no hunk for this file", name)
	}
	p, err := tc.Resolve(name)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", name, err)
	}
	c := Change{Path: p, Label: "apply_patch " + p.Rel}
	if orig == "" { // a new file: every hunk only adds
		if err := tc.mustNotExist(ctx, p, name, "the patch creates it (--- /dev/null)"); err != nil {
			return nil, "", err
		}
		var b strings.Builder
		for i, h := range fd.Hunks {
			ph := parseHunk(h)
			if len(ph.old) > 0 {
				return nil, "", fmt.Errorf("%s hunk %d: the file is new (--- /dev/null), so the hunk may only add lines ('+')", name, i+1)
			}
			b.WriteString(ph.newText("\n", nil))
		}
		c.Create, c.After, c.Verbatim = true, []byte(b.String()), true
		c.Edits = []TextEdit{{NewText: b.String()}}
		return []Change{c}, "", nil
	}
	src := p
	if orig != name { // renamed: the hunks apply to the old file
		if src, err = tc.Resolve(orig); err != nil {
			return nil, "", fmt.Errorf("%s: %v", orig, err)
		}
		if err := tc.mustNotExist(ctx, p, name, "the patch renames "+orig+" to it"); err != nil {
			return nil, "", err
		}
	}
	doc, err := tc.workspace(ctx).Read(ctx, src)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", orig, err)
	}
	if safefile.LooksBinary(doc.Content) {
		return nil, "", fmt.Errorf("%s is a binary file; apply_patch patches text files only", orig)
	}
	edits, loose, err := locateHunks(orig, doc.Content, fd.Hunks, pf.codex)
	if err != nil {
		return nil, "", err
	}
	verbatim := len(loose) == 0
	after, err := diff.Apply(doc.Content, edits)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", orig, err)
	}
	warn := tc.readWarning(ctx, "apply_patch", src.Abs)
	if warn != "" {
		warn = src.Rel + ": " + warn
	}
	if !verbatim {
		warn = strings.TrimPrefix(warn+"\n"+looseNote(src.Rel, loose), "\n")
	}
	if wholeFileDiff(fd, codexDeletedFile) || newName == "" {
		if newName == "" && !wholeFileDiff(fd, codexDeletedFile) && len(after) != 0 {
			return nil, "", fmt.Errorf("%s: the patch deletes it (+++ /dev/null), but its hunks leave %d bytes; remove every line", name, len(after))
		}
		c.Base, c.Delete = doc, true
		return []Change{c}, strings.TrimPrefix(warn, src.Rel+": "), nil
	}
	if orig != name {
		gone := Change{Path: src, Base: doc, Delete: true, Label: "apply_patch " + src.Rel + " → " + p.Rel, Moved: p.Rel}
		c.Create, c.After, c.Edits = true, after, []TextEdit{{NewText: string(after)}}
		c.Label, c.Moved, c.Verbatim = gone.Label, src.Rel, verbatim
		return []Change{gone, c}, warn, nil
	}
	c.Base, c.Edits, c.After, c.Verbatim = doc, edits, after, verbatim
	return []Change{c}, warn, nil
}

// looseNote says which hunks of a file were found only with whitespace
// ignored: what landed differs from the patch, so its diff follows.
func looseNote(rel string, hunks []int) string {
	which := fmt.Sprintf("hunk %d", hunks[0])
	if len(hunks) > 1 {
		which = "hunks " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(hunks)), ", "), "[]")
	}
	return fmt.Sprintf("%s: %s matched the file only with whitespace or quotes ignored; the file's own context lines were kept, so its diff below shows what landed.", rel, which)
}

// mustNotExist refuses a path the patch would create over an existing file.
func (tc *ToolContext) mustNotExist(ctx context.Context, p guard.Path, name, why string) error {
	_, err := tc.workspace(ctx).Read(ctx, p)
	switch {
	case err == nil:
		return fmt.Errorf("%s: %s but it already exists; patch it instead", name, why)
	case !errors.Is(err, ErrNotExist):
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

// codexPath is the workspace path of a "*** Begin Patch" header: "" for
// the /dev/null of an added or deleted file.
func codexPath(s string) string {
	if s = strings.TrimSpace(s); s == "/dev/null" {
		return ""
	}
	return s
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
