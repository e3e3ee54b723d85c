package lsp

import (
	"bytes"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// LineMap maps the lines of a file as the user has it to the lines of
// a run's pending view of it, through the pending diff: lines outside
// the changed hunks move by what the hunks before them add or remove;
// lines inside a hunk have no counterpart. Lines are 0-based.
type LineMap struct {
	hunks []lineHunk
}

// lineHunk is one changed run of lines: [User, UserEnd) of the user's
// text became [View, ViewEnd) of the view's.
type lineHunk struct {
	User, UserEnd int
	View, ViewEnd int
}

// NewLineMap returns the map from user's text to view's.
func NewLineMap(user, view []byte) LineMap {
	var m LineMap
	shift := 0 // view line - user line before the current hunk
	for _, e := range diff.LineEdits(user, view) {
		first := bytes.Count(user[:e.Start], nl)
		last := first + lineCount(user[e.Start:e.End])
		added := lineCount([]byte(e.NewText))
		h := lineHunk{User: first, UserEnd: last, View: first + shift}
		h.ViewEnd = h.View + added
		shift = h.ViewEnd - h.UserEnd
		m.hunks = append(m.hunks, h)
	}
	return m
}

// lineCount is the number of lines in b: its newlines, and one more
// for a last line without one.
func lineCount(b []byte) int {
	n := bytes.Count(b, nl)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Changed reports whether the view differs from the user's text.
func (m LineMap) Changed() bool { return len(m.hunks) > 0 }

// ToUser maps a line of the view to the user's text; ok is false for a
// line inside a pending hunk (the run wrote it).
func (m LineMap) ToUser(line int) (int, bool) {
	shift := 0
	for _, h := range m.hunks {
		if line < h.View {
			break
		}
		if line < h.ViewEnd {
			return 0, false
		}
		shift = h.ViewEnd - h.UserEnd
	}
	return line - shift, true
}

// ToView maps a line of the user's text to the view; ok is false for a
// line the run changed or removed, which is then mapped to the first
// line of its hunk in the view.
func (m LineMap) ToView(line int) (int, bool) {
	shift := 0
	for _, h := range m.hunks {
		if line < h.User {
			break
		}
		if line < h.UserEnd {
			return h.View, false
		}
		shift = h.ViewEnd - h.UserEnd
	}
	return line + shift, true
}
