package tools

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// The "*** Begin Patch" format is the one OpenAI models emit for a tool
// named apply_patch (Codex's). It is turned into the same FileDiffs a
// unified diff parses to, so locating, review and undo are shared.
const (
	codexBegin  = "*** Begin Patch"
	codexEnd    = "*** End Patch"
	codexUpdate = "*** Update File: "
	codexAdd    = "*** Add File: "
	codexDelete = "*** Delete File: "
	codexMove   = "*** Move to: "
	codexEOF    = "*** End of File"
	// codexWhole marks a FileDiff that adds or deletes a whole file
	// without hunks, as git marks them ("new file mode", "deleted file
	// mode"): a Codex delete names no lines, and an added file may be empty.
	codexNewFile     = "new file mode 100644"
	codexDeletedFile = "deleted file mode 100644"
)

// codexHunk is what a "*** Begin Patch" hunk says beyond its lines:
// the "@@ text" lines before it, each a line of the file (a func, a
// class) that the hunk follows, in order; and "*** End of File", which
// puts the hunk's lines at the end of the file.
type codexHunk struct {
	anchors []string
	eof     bool
}

// patchFile is one file of a patch: its FileDiff, and for a "*** Begin
// Patch" patch what each hunk says beyond its lines (nil otherwise).
type patchFile struct {
	fd    *diff.FileDiff
	codex []codexHunk
}

// isCodexPatch reports whether patch is in the "*** Begin Patch" format,
// perhaps wrapped in a shell heredoc (apply_patch <<'EOF' … EOF).
func isCodexPatch(patch string) bool {
	return strings.HasPrefix(unwrapHeredoc(strings.TrimSpace(patch)), codexBegin)
}

// unwrapHeredoc strips the heredoc some models wrap a patch in, as they
// would for a shell: a first line ending in <<EOF, <<'EOF' or <<"EOF"
// (after "apply_patch" or not) and a last line EOF.
func unwrapHeredoc(patch string) string {
	first, rest, ok := strings.Cut(patch, "\n")
	if !ok {
		return patch
	}
	f := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(first), "apply_patch"))
	if f != "<<EOF" && f != "<<'EOF'" && f != `<<"EOF"` {
		return patch
	}
	rest = strings.TrimRight(rest, " \t\r\n")
	if body, ok := strings.CutSuffix(rest, "EOF"); ok && (body == "" || strings.HasSuffix(body, "\n")) {
		return strings.TrimSpace(body)
	}
	return patch
}

// parseCodexPatch parses a "*** Begin Patch" patch. Its hunks carry no
// line numbers (OrigStartLine 0), so each is found by its lines and its
// @@ lines (see codexHunk); an "@@ text" line is also the hunk's section
// for messages.
func parseCodexPatch(patch string) ([]patchFile, error) {
	patch = unwrapHeredoc(strings.TrimSpace(patch))
	lines := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	if strings.TrimSpace(lines[len(lines)-1]) != codexEnd {
		return nil, fmt.Errorf("the patch does not end with %q", codexEnd)
	}
	lines = lines[1 : len(lines)-1]
	var (
		files []patchFile
		pf    *patchFile
		kind  string // the current file's header: codexUpdate, codexAdd or codexDelete
		h     *diff.Hunk
		ch    codexHunk // what the current hunk says beyond its lines
		// blankAt marks the offsets in h.Body of lines that were empty
		// in the patch (not " ").
		blankAt = map[int]bool{}
	)
	endHunk := func() {
		if h != nil {
			// A blank line before the next @@ or file separates; it is
			// no context line.
			for bytes.HasSuffix(h.Body, []byte("\n \n")) && blankAt[len(h.Body)-2] {
				h.Body = h.Body[:len(h.Body)-2]
				h.OrigLines--
				h.NewLines--
			}
		}
		if h != nil && h.Body != nil {
			pf.fd.Hunks = append(pf.fd.Hunks, h)
			pf.codex = append(pf.codex, ch)
			ch = codexHunk{}
		}
		h = nil
		clear(blankAt)
	}
	for i, l := range lines {
		n := i + 2 // line number in the patch
		marker := strings.TrimRight(l, " \t")
		switch {
		case strings.HasPrefix(marker, codexUpdate), strings.HasPrefix(marker, codexAdd), strings.HasPrefix(marker, codexDelete):
			endHunk()
			ch = codexHunk{}
			kind = marker[:strings.Index(marker, ": ")+2]
			path := strings.TrimSpace(marker[len(kind):])
			if path == "" {
				return nil, fmt.Errorf("line %d: %q names no file", n, l)
			}
			fd := &diff.FileDiff{OrigName: path, NewName: path}
			switch kind {
			case codexAdd:
				fd.OrigName, fd.Extended = "/dev/null", []string{codexNewFile}
				h = &diff.Hunk{NewStartLine: 1}
			case codexDelete:
				fd.NewName, fd.Extended = "/dev/null", []string{codexDeletedFile}
			}
			files = append(files, patchFile{fd: fd, codex: []codexHunk{}})
			pf = &files[len(files)-1]
		case pf == nil:
			return nil, fmt.Errorf("line %d: %q comes before any *** Update File, *** Add File or *** Delete File line", n, l)
		case strings.HasPrefix(marker, codexMove):
			if kind != codexUpdate || h != nil || len(pf.fd.Hunks) > 0 {
				return nil, fmt.Errorf("line %d: *** Move to comes right after an *** Update File line", n)
			}
			pf.fd.NewName = strings.TrimSpace(marker[len(codexMove):])
		case marker == codexEOF:
			if kind != codexUpdate || h == nil || h.Body == nil {
				return nil, fmt.Errorf("line %d: *** End of File ends a hunk of an *** Update File", n)
			}
			ch.eof = true
			endHunk()
		case kind == codexDelete:
			return nil, fmt.Errorf("line %d: *** Delete File %s takes no lines, got %q", n, pf.fd.OrigName, l)
		case kind == codexUpdate && strings.HasPrefix(l, "@@"):
			if h != nil && h.Body != nil {
				endHunk()
			}
			// Several @@ lines in a row narrow down step by step
			// (a class, then a method of it).
			if a := strings.TrimSpace(strings.TrimPrefix(l, "@@")); a != "" {
				ch.anchors = append(ch.anchors, a)
			}
			h = &diff.Hunk{Section: strings.Join(ch.anchors, " … ")}
		case kind == codexUpdate && l == "" && h == nil:
			// A blank line between hunks.
		case kind == codexAdd && !strings.HasPrefix(l, "+"):
			return nil, fmt.Errorf("line %d: every line of *** Add File %s starts with '+', got %q", n, pf.fd.NewName, l)
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if h == nil { // the first hunk of a file may omit its @@ line
				h = &diff.Hunk{}
			}
			if l == "" {
				l = " " // an empty context line whose space was dropped
				blankAt[len(h.Body)] = true
			}
			h.Body = append(h.Body, l+"\n"...)
			if l[0] != '+' {
				h.OrigLines++
			}
			if l[0] != '-' {
				h.NewLines++
			}
		default:
			return nil, fmt.Errorf("line %d: %q is not a hunk line: hunk lines start with ' ', '-' or '+'", n, l)
		}
	}
	if pf == nil {
		return nil, fmt.Errorf("the patch holds no *** Update File, *** Add File or *** Delete File")
	}
	endHunk()
	for _, f := range files {
		if f.fd.OrigName == "/dev/null" || f.fd.NewName == "/dev/null" || f.fd.NewName != f.fd.OrigName {
			continue
		}
		if len(f.fd.Hunks) == 0 {
			return nil, fmt.Errorf("*** Update File %s has no hunk", f.fd.OrigName)
		}
	}
	return files, nil
}

// wholeFileDiff reports a hunk-less add or delete of a whole file.
func wholeFileDiff(fd *diff.FileDiff, mark string) bool {
	return len(fd.Hunks) == 0 && len(fd.Extended) == 1 && fd.Extended[0] == mark
}
