package lsp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

const hunkCalc = `package calc

func Add(a, b int) int {
	total := a + b
	return total
}

func Sub(a, b int) int {
	diff := a - b
	return diff
}

func Mul(a, b int) int {
	prod := a * b
	return prod
}
`

// hunkLabels returns the annotation labels of the last applyEdit's text
// edits, in order.
func hunkLabels(t *testing.T, e *fake.Editor) []string {
	t.Helper()
	edits := e.AppliedEdits()
	we := edits[len(edits)-1].Edit
	var out []string
	for _, dc := range we.DocumentChanges {
		tde, ok := dc.(*protocol.TextDocumentEdit)
		if !ok {
			continue
		}
		for _, el := range tde.Edits {
			a, ok := el.(*protocol.AnnotatedTextEdit)
			if !ok {
				t.Fatalf("edit %T is not annotated", el)
			}
			ann, ok := we.ChangeAnnotations[a.AnnotationID]
			if !ok || ann.NeedsConfirmation == nil || !*ann.NeedsConfirmation {
				t.Fatalf("annotation %q: %+v, want one that needs confirmation", a.AnnotationID, ann)
			}
			out = append(out, ann.Label)
		}
	}
	return out
}

// TestPartialAcceptIsReportedPerHunk: each hunk is its own annotated
// edit, and when the reviewer keeps only some of them (VS Code's Refactor
// Preview with boxes unticked answers applied:true), the model is told
// exactly which hunks landed and the FileStates hold the buffer as it is.
func TestPartialAcceptIsReportedPerHunk(t *testing.T) {
	three := []map[string]string{
		{"old_string": "total := a + b\n\treturn total", "new_string": "sum := a + b\n\treturn sum"},
		{"old_string": "diff := a - b", "new_string": "d := a - b"},
		{"old_string": "prod := a * b\n\treturn prod", "new_string": "p := a * b\n\treturn p"},
	}
	for _, tc := range []struct {
		name   string
		edits  []map[string]string
		keep   []string // labels the user leaves ticked
		want   string   // the answer's first line
		buffer string
	}{
		{
			name:   "1 of 2",
			edits:  three[:2],
			keep:   []string{"calc.go: lines 4–5"},
			want:   `Applied 1 of 2 hunks to calc.go; the user rejected hunk 2 (line 9: "diff := a - b" → "d := a - b").`,
			buffer: strings.ReplaceAll(hunkCalc, "total", "sum"),
		},
		{
			name:   "2 of 3",
			edits:  three,
			keep:   []string{"calc.go: lines 4–5", "calc.go: lines 14–15"},
			want:   `Applied 2 of 3 hunks to calc.go; the user rejected hunk 2 (line 9: "diff := a - b" → "d := a - b").`,
			buffer: strings.NewReplacer("total", "sum", "prod", "p").Replace(hunkCalc),
		},
		{
			name:   "1 of 3",
			edits:  three,
			keep:   []string{"calc.go: line 9"},
			want:   `Applied 1 of 3 hunks to calc.go; the user rejected hunks 1 (lines 4–5: "total := a + b" → "sum := a + b"), 3 (lines 14–15: "prod := a * b" → "p := a * b").`,
			buffer: strings.Replace(hunkCalc, "diff := a - b", "d := a - b", 1),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, "-- calc.go --\n"+hunkCalc)
			e := newEditor(t, dir)
			u := e.OpenFile(filepath.Join(dir, "calc.go"))
			e.SetApplyEdit(fake.AcceptHunks(func(label string) bool {
				for _, k := range tc.keep {
					if label == k {
						return true
					}
				}
				return false
			}))
			out, isErr := e.RunTool("multi_edit", map[string]any{"path": "calc.go", "edits": tc.edits})
			if isErr {
				t.Fatalf("multi_edit: %s", out)
			}
			labels := hunkLabels(t, e)
			if len(labels) != len(tc.edits) {
				t.Errorf("labels %q: want one annotated edit per hunk (%d)", labels, len(tc.edits))
			}
			if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, tc.want) {
				t.Errorf("answer:\n%s\nwant it to start %q", out, tc.want)
			}
			if got := e.Text(u); got != tc.buffer {
				t.Fatalf("buffer:\n%s\nwant:\n%s", got, tc.buffer)
			}
			// The FileStates hold the buffer as it is: write_file over it
			// is not refused as "changed since you last read it".
			e.SetApplyEdit(fake.Accept)
			out, isErr = e.RunTool("write_file", map[string]any{"path": "calc.go", "content": tc.buffer + "// end\n"})
			if isErr {
				t.Errorf("write_file after the partial accept: %s", out)
			}
		})
	}
}

// TestFullRejectThroughUntickedHunks: applied:true with every hunk
// unticked is still "not applied", as before.
func TestFullRejectThroughUntickedHunks(t *testing.T) {
	dir := writeTree(t, "-- calc.go --\n"+hunkCalc)
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "calc.go"))
	e.SetApplyEdit(fake.AcceptHunks(func(string) bool { return false }))
	out, isErr := e.RunTool("edit_file", map[string]any{"path": "calc.go", "old_string": "diff := a - b", "new_string": "d := a - b"})
	if !isErr || !strings.HasPrefix(out, "Error: edit not applied: calc.go:") {
		t.Errorf("answer %q (error=%v): want edit not applied", out, isErr)
	}
	if got := e.Text(u); got != hunkCalc {
		t.Errorf("buffer changed: %q", got)
	}
}

// TestSingleLineHunkLabel: the label names the file and the line.
func TestSingleLineHunkLabel(t *testing.T) {
	dir := writeTree(t, "-- calc.go --\n"+hunkCalc)
	e := newEditor(t, dir)
	e.OpenFile(filepath.Join(dir, "calc.go"))
	if out, isErr := e.RunTool("edit_file", map[string]any{"path": "calc.go", "old_string": "diff := a - b", "new_string": "d := a - b"}); isErr {
		t.Fatal(out)
	}
	if got := hunkLabels(t, e); len(got) != 1 || got[0] != "calc.go: line 9" {
		t.Errorf("labels %q, want [calc.go: line 9]", got)
	}
}
