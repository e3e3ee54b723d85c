package diff_test

import (
	"fmt"
	"testing"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// Two insertions at one line: the run's and the user's. The region is
// the user's insertion in the current text and nothing of the base.
func ExampleConflictRegion() {
	base := []byte("cases := []int{\n\t1,\n}\n")
	cur := []byte("cases := []int{\n\t1,\n\t2, // the user's\n}\n")
	at := len("cases := []int{\n\t1,\n")
	run := diff.Edit{Start: at, End: at, NewText: "\t3, // the run's\n"}
	r := diff.ConflictRegion(base, run, cur)
	fmt.Printf("base %q, user's %q\n", base[r.BaseStart:r.BaseEnd], cur[r.CurStart:r.CurEnd])
	// Output: base "", user's "\t2, // the user's\n"
}

func TestConflictRegion(t *testing.T) {
	for _, c := range []struct {
		name, base, cur string
		start, end      int // the run's edit, in base
		newText         string
		wantBase        string
		wantCur         string
	}{
		{"the same line", "a\nb\nc\n", "a\nB\nc\n", 2, 4, "b!\n", "b\n", "B\n"},
		// The user's edit on the next line touches the hunk's and joins.
		{"a neighbouring line", "a\nb\nc\nd\n", "a\nb\nC\nd\n", 2, 4, "b!\n", "b\nc\n", "b\nC\n"},
		// Edits far from the hunk stay out, and shift the region.
		{"an edit before", "x\ny\nz\na\nb\nc\n", "X\nX2\ny\nz\na\nB\nc\n", 8, 10, "b!\n", "b\n", "B\n"},
		// The hunk's lines join two edits of the user: all of it.
		{"two edits around", "a\nb\nc\nd\ne\n", "a\nB\nc\nD\ne\n", 4, 6, "c!\n", "b\nc\nd\n", "B\nc\nD\n"},
		// The last line lacks a newline.
		{"no final newline", "a\nb", "a\nbb", 2, 3, "b!", "b", "bb"},
		{"no conflict", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", 6, 8, "d!\n", "d\n", "d\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, cur := []byte(c.base), []byte(c.cur)
			r := diff.ConflictRegion(base, diff.Edit{Start: c.start, End: c.end, NewText: c.newText}, cur)
			if got := string(base[r.BaseStart:r.BaseEnd]); got != c.wantBase {
				t.Errorf("base side %q, want %q (%+v)", got, c.wantBase, r)
			}
			if got := string(cur[r.CurStart:r.CurEnd]); got != c.wantCur {
				t.Errorf("user's side %q, want %q (%+v)", got, c.wantCur, r)
			}
			// Outside the region the two texts are the same.
			if string(base[:r.BaseStart]) != string(cur[:r.CurStart]) && c.name != "an edit before" && c.name != "no conflict" {
				t.Errorf("before the region: %q vs %q", base[:r.BaseStart], cur[:r.CurStart])
			}
			if string(base[r.BaseEnd:]) != string(cur[r.CurEnd:]) {
				t.Errorf("after the region: %q vs %q", base[r.BaseEnd:], cur[r.CurEnd:])
			}
		})
	}
}
