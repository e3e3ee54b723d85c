package snapshot

import "testing"

// TestIgnoredRender: the line names the ignored entries, most files
// first, counts only when there are several, and says "at least" when
// the check stopped at its cap.
func TestIgnoredRender(t *testing.T) {
	for _, tc := range []struct {
		ig   Ignored
		want string
	}{
		{Ignored{}, ""},
		{Ignored{Count: 1, Groups: []IgnoredGroup{{"out.log", 1}}}, "1 ignored file changed (out.log)"},
		{Ignored{Count: 5, Groups: []IgnoredGroup{{"dist/", 5}}}, "5 ignored files changed (dist/…)"},
		{Ignored{Count: 9, Groups: []IgnoredGroup{{"dist/", 5}, {"build/", 2}, {"a.pyc", 1}, {"b.pyc", 1}}, Partial: true},
			"at least 9 ignored files changed (dist/… 5, build/… 2, a.pyc, …)"},
	} {
		if got := tc.ig.render(); got != tc.want {
			t.Errorf("render %+v = %q, want %q", tc.ig, got, tc.want)
		}
	}
	if got := Render(nil, Ignored{}); got != "Workspace files changed by the command: none.\n" {
		t.Errorf("Render of nothing = %q", got)
	}
}
