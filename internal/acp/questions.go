package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// A question about a change of several files must show the user every
// file's diff before they answer, whatever the client renders of a
// session/request_permission (clients.go): a client that shows only the
// first content item gets one question per file, that file's diff its
// only content and its path the first location; a client that shows
// only the title gets every diff, as unified text, in the title.

// fileQuestion is one session/request_permission of a change: the files
// of the change it shows (files, indices into the change's), their
// paths and their diffs.
type fileQuestion struct {
	title string
	files []int
	paths []string
	diffs []sdk.ToolCallContent
}

// questions splits a change of the files at paths (diffs[i] the diff of
// paths[i]) into the questions p's client shows whole: one for them all
// (titled title), or one per file (titled each(i)).
func (p clientProfile) questions(title string, paths []string, diffs []sdk.ToolCallContent, each func(i int) string) []fileQuestion {
	if !p.firstContentOnly || len(paths) < 2 || len(diffs) != len(paths) {
		all := make([]int, len(paths))
		for i := range all {
			all[i] = i
		}
		return []fileQuestion{{title: title, files: all, paths: paths, diffs: diffs}}
	}
	out := make([]fileQuestion, len(paths))
	for i := range paths {
		out[i] = fileQuestion{title: each(i), files: []int{i}, paths: paths[i : i+1], diffs: diffs[i : i+1]}
	}
	return out
}

// ofTotal numbers one of n per-file questions.
func ofTotal(what string, i, n int) string {
	return fmt.Sprintf("%s (%d of %d)", what, i+1, n)
}

// shownTitle is the title a question carries: for a client that shows
// only the title, with every diff after it.
func (s *acpSession) shownTitle(title string, diffs []sdk.ToolCallContent) string {
	if !s.a.profile().titleOnly || len(diffs) == 0 {
		return title
	}
	var b strings.Builder
	b.WriteString(title)
	for _, d := range diffs {
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(s.diffText(d), "\n"))
	}
	b.WriteString("\n")
	return b.String()
}

// diffText is one content item as the user reads it in a terminal: a
// diff as a unified diff (capped as every diff cb-ls shows is, saying
// how much was left out), a text as itself.
func (s *acpSession) diffText(c sdk.ToolCallContent) string {
	switch {
	case c.Diff != nil:
		old, create := "", c.Diff.OldText == nil
		if !create {
			old = *c.Diff.OldText
		}
		r := diff.Compute(s.rel(c.Diff.Path), create, []byte(old), diff.LineEdits([]byte(old), []byte(c.Diff.NewText)))
		if r.Unified == "" {
			return s.rel(c.Diff.Path) + ": no change in its text"
		}
		return r.Unified
	case c.Content != nil && c.Content.Content.Text != nil:
		return c.Content.Content.Text.Text
	}
	return ""
}
