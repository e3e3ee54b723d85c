package complete

import (
	"strings"
	"testing"
)

// The answer is diffed against the region: the change nearest the last
// edit is the suggestion, in document lines; an answer that undoes the
// user's edit, changes nothing or is not a region is no suggestion.
func TestPickEdit(t *testing.T) {
	before := "func f() {\n\tx := 1\n\ty := x + 1\n\n\tprintln(x, y)\n}\n"
	region := strings.Replace(before, "\tx := 1", "\tcount := 1", 1)
	next := strings.Replace(region, "y := x + 1", "y := count + 1", 1)
	all := strings.ReplaceAll(region, "x", "count")
	in := NextInput{Start: 10, Region: region, Before: before, Line: 11}
	wrap := func(s string) string { return "Sure:\n" + regionOpen + "\n" + s + regionClose + "\n" }

	s, err := pickEdit(in, wrap(next))
	if err != nil || s.Start != 12 || s.End != 13 || s.Old != "\ty := x + 1\n" || s.New != "\ty := count + 1\n" {
		t.Errorf("next use: %+v %v", s, err)
	}
	// Two changes: the nearer one (line 12, the one after the edit).
	if s, err := pickEdit(in, wrap(all)); err != nil || s.Start != 12 || s.New != "\ty := count + 1\n" {
		t.Errorf("nearest of two: %+v %v", s, err)
	}
	// An answer that reverts the user's line and changes another: the other.
	revert := strings.Replace(strings.Replace(region, "\tcount := 1", "\tx := 1", 1), "println(x, y)", "println(count, y)", 1)
	if s, err := pickEdit(in, wrap(revert)); err != nil || s.Start != 14 || s.New != "\tprintln(count, y)\n" {
		t.Errorf("revert and another: %+v %v", s, err)
	}
	for name, answer := range map[string]string{
		"unchanged": wrap(region),
		"undo":      wrap(before),
		"no region": next,
		"unclosed":  regionOpen + "\n" + next,
	} {
		if s, err := pickEdit(in, answer); err == nil {
			t.Errorf("%s: suggestion %+v, want none", name, s)
		}
	}
	// The document's last line has no line end; CRLF regions stay CRLF.
	in = NextInput{Start: 0, Region: "a := 1\nb := a", Line: 0}
	if s, err := pickEdit(in, wrap("a := 1\nb := a + 1\n")); err != nil || s.Start != 1 || s.End != 2 || s.New != "b := a + 1" {
		t.Errorf("last line: %+v %v", s, err)
	}
	in = NextInput{Start: 0, Region: "a := 1\r\nb := a\r\n", Line: 0}
	if s, err := pickEdit(in, wrap("a := 1\nb := a + 1\n")); err != nil || s.New != "b := a + 1\r\n" {
		t.Errorf("crlf: %+v %v", s, err)
	}
}
