package tools

import (
	"os"
	"strings"
	"testing"
)

// TestApplyPatchCodexMultiFile: one *** Begin Patch patch updates,
// adds and deletes files, as one change.
func TestApplyPatchCodexMultiFile(t *testing.T) {
	e := newFileEnv(t, map[string]string{"calc.go": patchCalc, "old.txt": "gone\nsoon\n"})
	patch := `*** Begin Patch
*** Update File: calc.go
@@ func Add(a, b int) int {
 func Add(a, b int) int {
-	total := a + b
-	return total
+	sum := a + b
+	return sum
 }
@@
 func Sub(a, b int) int {
 	return a - b
 }
+// end
*** End of File
*** Add File: sub/new.txt
+fresh
+file
*** Delete File: old.txt
*** End Patch
`
	res := e.call("apply_patch", argMap{"patch": patch})
	if res.IsError {
		t.Fatalf("apply_patch: %s", res.Output)
	}
	want := strings.NewReplacer("total", "sum").Replace(patchCalc) + "// end\n"
	if got := e.read("calc.go"); got != want {
		t.Errorf("calc.go:\n%s\nwant:\n%s", got, want)
	}
	if got := e.read("sub/new.txt"); got != "fresh\nfile\n" {
		t.Errorf("sub/new.txt = %q", got)
	}
	if _, err := os.Stat(e.abs("old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt still there: %v", err)
	}
	for _, w := range []string{"Edited calc.go (+3 -2)", "Created sub/new.txt (+2 -0)", "Deleted old.txt (+0 -2)"} {
		if !strings.Contains(res.Output, w) {
			t.Errorf("answer lacks %q:\n%s", w, res.Output)
		}
	}
}

func TestApplyPatchCodex(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
		files       map[string]string // after; "" for a file that must not exist
		errWant     []string
	}{
		{
			name:  "update without @@ line, CRLF patch",
			patch: "*** Begin Patch\r\n*** Update File: f.txt\r\n alpha\r\n-beta\r\n+BETA\r\n*** End Patch",
			files: map[string]string{"f.txt": "alpha\nBETA\ngamma\n\ndelta\n"},
		},
		{
			name:  "update with an empty context line",
			patch: "*** Begin Patch\n*** Update File: f.txt\n@@\n gamma\n\n-delta\n+DELTA\n*** End Patch\n",
			files: map[string]string{"f.txt": "alpha\nbeta\ngamma\n\nDELTA\n"},
		},
		{
			name:  "add an empty file",
			patch: "*** Begin Patch\n*** Add File: empty.txt\n*** End Patch",
			files: map[string]string{"empty.txt": ""},
		},
		{
			name:  "delete",
			patch: "*** Begin Patch\n*** Delete File: f.txt\n*** End Patch",
			files: map[string]string{"f.txt": ""},
		},
		{
			name:    "no end line",
			patch:   "*** Begin Patch\n*** Add File: n.txt\n+x\n",
			errWant: []string{"the *** Begin Patch patch is malformed", `does not end with "*** End Patch"`, "Nothing was applied."},
		},
		{
			name:    "unprefixed line in a hunk",
			patch:   "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: f.txt\n@@\n alpha\nbeta\n*** End Patch",
			errWant: []string{`line 7: "beta" is not a hunk line`, "Nothing was applied."},
		},
		{
			name:    "add without '+'",
			patch:   "*** Begin Patch\n*** Add File: n.txt\nx\n*** End Patch",
			errWant: []string{`every line of *** Add File n.txt starts with '+'`},
		},
		{
			name:  "hunk with only additions: at the end of the file, as Codex puts it",
			patch: "*** Begin Patch\n*** Update File: f.txt\n@@\n+new\n*** End Patch",
			files: map[string]string{"f.txt": "alpha\nbeta\ngamma\n\ndelta\nnew\n"},
		},
		{
			name:  "hunk with only additions after an @@ line: right after it",
			patch: "*** Begin Patch\n*** Update File: f.txt\n@@ beta\n+beta.5\n*** End Patch",
			files: map[string]string{"f.txt": "alpha\nbeta\nbeta.5\ngamma\n\ndelta\n"},
		},
		{
			name:    "context not in the file: nothing of the patch applies",
			patch:   "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Delete File: f.txt\n*** Update File: f.txt\n@@ gamma\n alpha\n-BETA\n+beta2\n*** End Patch",
			errWant: []string{"f.txt hunk 1 (@@ gamma)", "not in the file after its @@ line (line 3)", "Nothing was applied."},
		},
		{
			name:    "add over an existing file",
			patch:   "*** Begin Patch\n*** Add File: f.txt\n+x\n*** End Patch",
			errWant: []string{"f.txt: the patch creates it", "already exists"},
		},
		{
			name:    "delete a missing file",
			patch:   "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch",
			errWant: []string{"nope.txt", "Nothing was applied."},
		},
		{
			name:  "move",
			patch: "*** Begin Patch\n*** Update File: f.txt\n*** Move to: sub/g.txt\n@@\n-alpha\n+ALPHA\n*** End Patch",
			files: map[string]string{"f.txt": "", "sub/g.txt": "ALPHA\nbeta\ngamma\n\ndelta\n"},
		},
		{
			name:  "move without a hunk",
			patch: "*** Begin Patch\n*** Update File: f.txt\n*** Move to: h.txt\n*** End Patch",
			files: map[string]string{"f.txt": "", "h.txt": "alpha\nbeta\ngamma\n\ndelta\n"},
		},
		{
			name:    "move onto an existing file",
			patch:   "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: f.txt\n*** Move to: n.txt\n@@\n-alpha\n+ALPHA\n*** End Patch",
			errWant: []string{"n.txt appears twice in the patch"},
		},
		{
			name:    "move after a hunk",
			patch:   "*** Begin Patch\n*** Update File: f.txt\n@@\n-alpha\n+ALPHA\n*** Move to: g.txt\n*** End Patch",
			errWant: []string{"line 6: *** Move to comes right after an *** Update File line"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const orig = "alpha\nbeta\ngamma\n\ndelta\n"
			e := newFileEnv(t, map[string]string{"f.txt": orig})
			res := e.call("apply_patch", argMap{"patch": tc.patch})
			if tc.errWant != nil {
				if !res.IsError {
					t.Fatalf("accepted: %s", res.Output)
				}
				for _, w := range tc.errWant {
					if !strings.Contains(res.Output, w) {
						t.Errorf("error lacks %q:\n%s", w, res.Output)
					}
				}
				if got := e.read("f.txt"); got != orig {
					t.Errorf("f.txt changed: %q", got)
				}
				for _, n := range []string{"n.txt", "g.txt"} {
					if _, err := os.Stat(e.abs(n)); !os.IsNotExist(err) {
						t.Errorf("%s was created: %v", n, err)
					}
				}
				return
			}
			if res.IsError {
				t.Fatalf("apply_patch: %s", res.Output)
			}
			for name, want := range tc.files {
				if want == "" && name != "empty.txt" {
					if _, err := os.Stat(e.abs(name)); !os.IsNotExist(err) {
						t.Errorf("%s still there: %v", name, err)
					}
					continue
				}
				if got := e.read(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}
