package filestate

import (
	"slices"
	"testing"
)

// TestLedgerChangedSince checks that a mark separates one turn's files
// from the earlier turns', whichever record kind names them, in the
// order the run first changed them.
func TestLedgerChangedSince(t *testing.T) {
	l := NewLedger()
	l.RecordWrite("/p/a.go", true, []byte("a"), []byte("A"), false)
	l.RecordPrior("/p/b.go", []byte("b"), true)
	mark := l.Mark()
	if got := l.ChangedSince(mark); len(got) != 0 {
		t.Fatalf("ChangedSince(now) = %q, want none", got)
	}
	l.RecordUnrestorable("/p/c.bin", "too large")
	l.RecordWrite("/p/a.go", true, []byte("A"), []byte("AA"), false)
	if got, want := l.ChangedSince(mark), []string{"/p/a.go", "/p/c.bin"}; !slices.Equal(got, want) {
		t.Errorf("ChangedSince(mark) = %q, want %q", got, want)
	}
	if got, want := l.ChangedSince(0), []string{"/p/a.go", "/p/b.go", "/p/c.bin"}; !slices.Equal(got, want) {
		t.Errorf("ChangedSince(0) = %q, want %q", got, want)
	}
	// An undo keeps the first record's prior content: a.go's is still "a".
	if e := l.Files()[0]; string(e.Prior) != "a" {
		t.Errorf("a.go's prior = %q, want %q", e.Prior, "a")
	}
	var none *Ledger
	if none.Mark() != 0 || none.ChangedSince(0) != nil {
		t.Error("a nil Ledger must record nothing")
	}
}

// TestLedgerRebasedAndEntangled: a rebased record replaces the prior
// (the user's later text, without the run's changes); an entangled one
// makes the file one an undo names instead of restoring.
func TestLedgerRebasedAndEntangled(t *testing.T) {
	l := NewLedger()
	l.RecordWrite("/p/a.go", true, []byte("a\n"), []byte("A\n"), false)
	l.RecordRebased("/p/a.go", []byte("a\nmine\n"), []byte("A\nmine\nB\n"), false)
	e, ok := l.Entry("/p/a.go")
	if !ok || string(e.Prior) != "a\nmine\n" || string(e.Result) != "A\nmine\nB\n" || !e.Known || !e.Existed {
		t.Errorf("rebased entry = %+v, %v", e, ok)
	}
	l.RecordEntangled("/p/a.go", "both changed it")
	if e, _ := l.Entry("/p/a.go"); !e.Unrestorable || e.Why != "both changed it" || e.Known {
		t.Errorf("entangled entry = %+v", e)
	}
	if _, ok := l.Entry("/p/none.go"); ok {
		t.Error("Entry found a file the run never changed")
	}
}
