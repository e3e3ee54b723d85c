package snapshot

import (
	"os"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// TestScanKeepsPriorContent: a scan with a budget copies each regular
// file's content; a file over the per-file cap, or one that no longer
// fits the total, is stamped but named with the reason; ignored files
// are neither stamped nor copied.
func TestScanKeepsPriorContent(t *testing.T) {
	e := newTree(t, map[string]string{
		".gitignore":  "out/\n",
		"a.txt":       "aaaaaaaa",
		"sub/b.txt":   "bbbbbbbb",
		"empty.txt":   "",
		"huge.txt":    "0123456789abcdef",
		"out/gen.txt": "ignored",
	})
	if err := os.Symlink("a.txt", e.abs("link")); err != nil {
		t.Fatal(err)
	}
	// .gitignore (5 bytes), a.txt and sub/b.txt (8 each): any two fit the
	// total, all three do not; which one misses depends on the workers.
	keep := &Budget{perFile: 10, total: 18}
	scan := Take(t.Context(), e.roots, keep)
	got := map[string]scanFile{}
	for _, f := range scan.roots[0].files {
		got[f.rel] = f
	}
	if _, ok := got["out/gen.txt"]; ok {
		t.Error("an ignored file was scanned")
	}
	var missed []string
	var used int64
	for _, rel := range []string{".gitignore", "a.txt", "sub/b.txt"} {
		f := got[rel]
		switch f.copy {
		case copied:
			if want := e.read(rel); string(f.prior) != want {
				t.Errorf("%s kept %q, want %q", rel, f.prior, want)
			}
			used += f.st.size
		case overBudget:
			if f.prior != nil {
				t.Errorf("%s over the budget kept %q", rel, f.prior)
			}
			missed = append(missed, rel)
		default:
			t.Errorf("%s: %v", rel, f.copy)
		}
	}
	if len(missed) != 1 {
		t.Errorf("over the budget: %v, want exactly one file", missed)
	}
	if f := got["empty.txt"]; f.copy != copied || f.prior == nil || len(f.prior) != 0 {
		t.Errorf("empty.txt: %+v", f)
	}
	if f := got["huge.txt"]; f.copy != tooLarge || f.prior != nil || f.st.size != 16 {
		t.Errorf("huge.txt: %+v", f)
	}
	if f := got["link"]; f.copy != notRegular || f.prior != nil {
		t.Errorf("link: %+v", f)
	}
	if n := keep.used.Load(); n != used {
		t.Errorf("budget used %d bytes, want %d", n, used)
	}
	// Without a budget nothing is copied.
	for _, f := range Take(t.Context(), e.roots, nil).roots[0].files {
		if f.prior != nil || f.copy != notCopied {
			t.Errorf("%s copied without a budget: %+v", f.rel, f)
		}
	}
}

// TestDiffScansSeesReplacement: a file replaced by a rename (same size,
// same mtime) is reported changed by its inode; created and deleted
// files carry the earlier copy where there is one.
func TestDiffScansSeesReplacement(t *testing.T) {
	e := newTree(t, map[string]string{"same.txt": "one", "gone.txt": "bye"})
	fi, _ := os.Stat(e.abs("same.txt"))
	before := Take(t.Context(), e.roots, NewBudget())
	writeTestFile(t, e.abs("tmp"), "two")
	os.Chtimes(e.abs("tmp"), fi.ModTime(), fi.ModTime())
	if err := os.Rename(e.abs("tmp"), e.abs("same.txt")); err != nil {
		t.Fatal(err)
	}
	os.Remove(e.abs("gone.txt"))
	writeTestFile(t, e.abs("new.txt"), "hi")
	after := Take(t.Context(), e.roots, nil)
	d := Diff(before, after, e.rel)
	if len(d) != 3 {
		t.Fatalf("changes = %+v", d)
	}
	want := []struct{ rel, kind, prior string }{{"gone.txt", "deleted", "bye"}, {"new.txt", "created", ""}, {"same.txt", "changed", "one"}}
	for i, w := range want {
		if d[i].Rel != w.rel || d[i].Kind != w.kind || string(d[i].before.prior) != w.prior {
			t.Errorf("change %d = %s %s %q, want %+v", i, d[i].Kind, d[i].Rel, d[i].before.prior, w)
		}
	}
}

// TestRecordForUndo: what the ledger gets for each kind of change; a
// file whose old content is not UTF-8 is named, since the undo's edit
// through the editor would alter its bytes.
func TestRecordForUndo(t *testing.T) {
	l := filestate.NewLedger()
	for _, c := range []Changed{
		{Change: Change{Path: "/w/new", Kind: "created"}},
		{Change: Change{Path: "/w/text", Kind: "changed"}, before: scanFile{prior: []byte("héllo\n"), copy: copied}},
		{Change: Change{Path: "/w/gone", Kind: "deleted"}, before: scanFile{prior: []byte{}, copy: copied}},
		{Change: Change{Path: "/w/latin1", Kind: "changed"}, before: scanFile{prior: []byte("caf\xe9\n"), copy: copied}},
		{Change: Change{Path: "/w/big", Kind: "deleted"}, before: scanFile{copy: overBudget}},
	} {
		RecordUndo(l, c)
	}
	got := map[string]filestate.LedgerEntry{}
	for _, e := range l.Files() {
		got[e.Path] = e
	}
	if e := got["/w/new"]; e.Existed || e.Unrestorable {
		t.Errorf("created: %+v", e)
	}
	if e := got["/w/text"]; !e.Existed || e.Unrestorable || string(e.Prior) != "héllo\n" {
		t.Errorf("changed text: %+v", e)
	}
	if e := got["/w/gone"]; !e.Existed || e.Unrestorable || e.Prior == nil {
		t.Errorf("deleted empty file: %+v", e)
	}
	if e := got["/w/latin1"]; !e.Unrestorable || !strings.Contains(e.Why, "not UTF-8") {
		t.Errorf("not UTF-8: %+v", e)
	}
	if e := got["/w/big"]; !e.Unrestorable || !strings.Contains(e.Why, "64 MiB") {
		t.Errorf("over the budget: %+v", e)
	}
}
