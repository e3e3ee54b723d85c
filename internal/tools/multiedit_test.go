package tools

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/google/go-cmp/cmp"
)

func TestMultiEdit(t *testing.T) {
	const src = "package a\n\nfunc f() int {\n\treturn 1\n}\n\nfunc g() int {\n\treturn 2\n}\n"
	type step = argMap
	tests := []struct {
		name   string
		edits  []step
		isErr  bool
		want   string
		output []string
		nEdits int // TextEdits sent to the workspace
	}{
		{name: "two places", edits: []step{{"old_string": "return 1", "new_string": "return 10"}, {"old_string": "return 2", "new_string": "return 20"}},
			want: strings.NewReplacer("return 1", "return 10", "return 2", "return 20").Replace(src), nEdits: 2, output: []string{"(+2 -2)"}},
		{name: "later edit sees earlier result", edits: []step{{"old_string": "return 1", "new_string": "return one"}, {"old_string": "one", "new_string": "uno"}},
			want: strings.Replace(src, "return 1", "return uno", 1), nEdits: 1},
		{name: "second fails: nothing applied", edits: []step{{"old_string": "return 1", "new_string": "x"}, {"old_string": "missing", "new_string": "y"}},
			isErr: true, want: src, output: []string{"Error: edit 2 of 2: old_string not found in file", "No edit was applied."}},
		{name: "ambiguous", edits: []step{{"old_string": "int {", "new_string": "x"}},
			isErr: true, want: src, output: []string{"edit 1 of 1: old_string matches 2 times — must be unique. Provide more context."}},
		// Line numbers in errors are the file's on disk, not those of the
		// text after the earlier edits (which added 3 lines at the top).
		{name: "ambiguous after an insertion: disk lines", edits: []step{{"old_string": "package a\n", "new_string": "package a\n// one\n// two\n// three\n"}, {"old_string": "int {", "new_string": "x"}},
			isErr: true, want: src, output: []string{"edit 2 of 2: old_string matches 2 times", "(matches start at lines 3, 7)"}},
		{name: "not found after an insertion: disk lines", edits: []step{{"old_string": "package a\n", "new_string": "package a\n// one\n// two\n// three\n"}, {"old_string": "func g() int {\n\treturn 3\n}", "new_string": "x"}},
			isErr: true, want: src, output: []string{"edit 2 of 2: old_string not found", "The closest text is at lines 7–9", "line 8 differs", "8\t\treturn 2\n"}},
		{name: "identical", edits: []step{{"old_string": "a", "new_string": "a"}}, isErr: true, want: src},
		{name: "empty old", edits: []step{{"old_string": "", "new_string": "a"}}, isErr: true, want: src},
		{name: "no edits", edits: []step{}, isErr: true, want: src, output: []string{"edits is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFileEnv(t, map[string]string{"a.go": src})
			w := e.useFake()
			e.call("read_file", argMap{"path": "a.go"})
			res := e.call("multi_edit", argMap{"path": "a.go", "edits": tt.edits})
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v:\n%s", res.IsError, res.Output)
			}
			for _, s := range tt.output {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Output)
				}
			}
			if got := e.read("a.go"); got != tt.want {
				t.Errorf("content:\n%s\nwant:\n%s", got, tt.want)
			}
			if tt.isErr {
				if len(w.changes) != 0 {
					t.Error("a failed multi_edit reached the workspace")
				}
				return
			}
			if n := len(w.last(t).Edits); n != tt.nEdits {
				t.Errorf("%d TextEdits, want %d: %+v", n, tt.nEdits, w.last(t).Edits)
			}
		})
	}
}

// TestEditSpans applies random edits one after another and checks that
// the spans, as edits against the original, give the same text, sorted
// and without overlaps.
func TestEditSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		base := []byte(randText(r, 1+r.IntN(60)))
		cur := append([]byte(nil), base...)
		var spans editSpans
		for range 1 + r.IntN(6) {
			start := r.IntN(len(cur) + 1)
			end := start + r.IntN(len(cur)-start+1)
			repl := randText(r, r.IntN(8))
			spans.add(start, end, len(repl))
			cur = append(append(append([]byte(nil), cur[:start]...), repl...), cur[end:]...)
		}
		edits := spans.edits(cur)
		for i := 1; i < len(edits); i++ {
			if edits[i].Start < edits[i-1].End {
				t.Fatalf("iter %d: edits overlap: %+v", iter, edits)
			}
		}
		got, err := diff.Apply(base, edits)
		if err != nil {
			t.Fatalf("iter %d: %v (%+v)", iter, err, edits)
		}
		if diff := cmp.Diff(string(cur), string(got)); diff != "" {
			t.Fatalf("iter %d: base %q edits %+v (-want +got):\n%s", iter, base, edits, diff)
		}
	}
}

func randText(r *rand.Rand, n int) string {
	const alphabet = "ab\n"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}
