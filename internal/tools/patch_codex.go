package tools

import (
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

// isCodexPatch reports whether patch is in the "*** Begin Patch" format.
func isCodexPatch(patch string) bool {
	return strings.HasPrefix(strings.TrimSpace(patch), codexBegin)
}

// parseCodexPatch parses a "*** Begin Patch" patch. Its hunks carry no
// line numbers (OrigStartLine 0), so each is found by its lines alone; an
// "@@ text" header is kept as the hunk's section for messages.
func parseCodexPatch(patch string) ([]*diff.FileDiff, error) {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(patch), "\r\n", "\n"), "\n")
	if lines[len(lines)-1] != codexEnd {
		return nil, fmt.Errorf("the patch does not end with %q", codexEnd)
	}
	lines = lines[1 : len(lines)-1]
	var (
		fds  []*diff.FileDiff
		fd   *diff.FileDiff
		kind string // the current file's header: codexUpdate, codexAdd or codexDelete
		h    *diff.Hunk
	)
	endHunk := func() {
		if h != nil && h.Body != nil {
			fd.Hunks = append(fd.Hunks, h)
		}
		h = nil
	}
	for i, l := range lines {
		n := i + 2 // line number in the patch
		switch {
		case strings.HasPrefix(l, codexUpdate), strings.HasPrefix(l, codexAdd), strings.HasPrefix(l, codexDelete):
			endHunk()
			kind = l[:strings.Index(l, ": ")+2]
			path := strings.TrimSpace(l[len(kind):])
			if path == "" {
				return nil, fmt.Errorf("line %d: %q names no file", n, l)
			}
			fd = &diff.FileDiff{OrigName: path, NewName: path}
			switch kind {
			case codexAdd:
				fd.OrigName, fd.Extended = "/dev/null", []string{codexNewFile}
				h = &diff.Hunk{NewStartLine: 1}
			case codexDelete:
				fd.NewName, fd.Extended = "/dev/null", []string{codexDeletedFile}
			}
			fds = append(fds, fd)
		case fd == nil:
			return nil, fmt.Errorf("line %d: %q comes before any *** Update File, *** Add File or *** Delete File line", n, l)
		case strings.HasPrefix(l, codexMove):
			if kind != codexUpdate {
				return nil, fmt.Errorf("line %d: *** Move to follows only an *** Update File", n)
			}
			fd.NewName = strings.TrimSpace(l[len(codexMove):])
		case l == codexEOF:
			// The hunk ends at the end of the file; its lines place it already.
		case kind == codexDelete:
			return nil, fmt.Errorf("line %d: *** Delete File %s takes no lines, got %q", n, fd.OrigName, l)
		case kind == codexUpdate && strings.HasPrefix(l, "@@"):
			endHunk()
			h = &diff.Hunk{Section: strings.TrimSpace(strings.TrimPrefix(l, "@@"))}
		case kind == codexAdd && !strings.HasPrefix(l, "+"):
			return nil, fmt.Errorf("line %d: every line of *** Add File %s starts with '+', got %q", n, fd.NewName, l)
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+':
			if h == nil { // the first hunk of a file may omit its @@ line
				h = &diff.Hunk{}
			}
			if l == "" {
				l = " " // an empty context line whose space was dropped
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
	endHunk()
	if len(fds) == 0 {
		return nil, fmt.Errorf("the patch holds no *** Update File, *** Add File or *** Delete File")
	}
	for _, fd := range fds {
		if fd.OrigName == "/dev/null" || fd.NewName == "/dev/null" {
			continue
		}
		if len(fd.Hunks) == 0 {
			return nil, fmt.Errorf("*** Update File %s has no hunk", fd.OrigName)
		}
		for j, h := range fd.Hunks {
			if h.OrigLines == 0 {
				return nil, fmt.Errorf("*** Update File %s, hunk %d only adds lines; give 2–3 unchanged lines around them (starting with ' ') so it can be placed", fd.OrigName, j+1)
			}
		}
	}
	return fds, nil
}

// wholeFileDiff reports a hunk-less add or delete of a whole file.
func wholeFileDiff(fd *diff.FileDiff, mark string) bool {
	return len(fd.Hunks) == 0 && len(fd.Extended) == 1 && fd.Extended[0] == mark
}
