package changeset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// Kind is what the run does to a file.
type Kind string

// The kinds of pending file.
const (
	KindCreated Kind = "created"
	KindChanged Kind = "changed"
	KindDeleted Kind = "deleted"
)

// File is one pending file of a set: reviewed hunk by hunk, or, for a
// command's ignored outputs, one Group kept or discarded as a whole.
type File struct {
	Path guard.Path
	Kind Kind
	// Hunks are the line diff of the base and the pending content, in
	// order (a deleted file, a created one and a binary file have one).
	Hunks []Hunk
	// Group is set for a group of ignored outputs (Path is its directory,
	// "node_modules", or a single ignored file); Hunks is then empty.
	Group *Group
	// Whole is set for a file that is one item, kept or discarded as a
	// whole and never diffed (binary, not UTF-8, over MaxDiffSize, a
	// link, a FIFO, a socket, a device, a path too long): Hunks then
	// holds one hunk with empty texts, whose Label is Whole.Describe
	// ("big.bin: 2.0 GB, whole file", "lib: link -> ../lib2").
	Whole *Whole
	// RunsLater, when set, says why the file runs later outside any
	// sandbox ("direnv loads it on cd"): every review shows it.
	RunsLater string
	// KeepRefused, when set, says why keep will not write the file
	// (beneath .git/ or .catbuddy/, cb-ls's own state, a FIFO): it is
	// listed, a keep leaves it pending with this reason, and discard
	// drops it.
	KeepRefused string
}

// Group is a command's ignored outputs beneath one directory, such as
// node_modules/ (1,234 files).
type Group struct {
	// ID names the group in a Selection, as a hunk's ID does.
	ID    string
	Count int
}

// Hunk is one change of a file the user keeps or discards.
type Hunk struct {
	// ID is stable while the hunk's file and text stay the same: the
	// set computed again after another edit keeps it.
	ID string
	// Edit is the hunk against the file's base (the user's text when the
	// run first touched the file, moved on by each keep).
	Edit diff.Edit
	// OldText is the base's text the hunk replaces, NewText the run's.
	OldText, NewText string
	// Label is how the hunk is named: "calc.go: lines 40–44".
	Label string
	// Conflict, when set, says why the last keep left the hunk pending:
	// the user's text touches it.
	Conflict string
}

// hunksOf computes rel's hunks from base to pending.
func hunksOf(rel string, kind Kind, base, pending []byte, conflicts map[string]string) []Hunk {
	var edits []diff.Edit
	switch {
	case kind == KindDeleted:
		edits = []diff.Edit{{Start: 0, End: len(base)}}
	case kind == KindCreated || isBinary(base) || isBinary(pending):
		edits = []diff.Edit{{Start: 0, End: len(base), NewText: string(pending)}}
	default:
		edits = diff.LineEdits(base, pending)
	}
	hs := make([]Hunk, len(edits))
	seen := map[string]int{}
	for i, e := range edits {
		old := string(base[e.Start:e.End])
		id := hunkID(rel, old, e.NewText, seen)
		label := diff.HunkLabel(rel, base, e)
		switch kind {
		case KindDeleted:
			label = rel + ": delete the file"
		case KindCreated:
			label = rel + ": new file"
		}
		hs[i] = Hunk{ID: id, Edit: e, OldText: old, NewText: e.NewText, Label: label, Conflict: conflicts[id]}
	}
	return hs
}

// hunkID names a hunk by its file and its text, so that an edit
// elsewhere in the file leaves it the same; a hunk repeated in one file
// gets its occurrence counted in.
func hunkID(rel, old, repl string, seen map[string]int) string {
	h := sha256.New()
	h.Write([]byte(rel))
	h.Write([]byte{0})
	h.Write([]byte(old))
	h.Write([]byte{0})
	h.Write([]byte(repl))
	id := hex.EncodeToString(h.Sum(nil))[:12]
	n := seen[id]
	seen[id] = n + 1
	if n > 0 {
		id += "-" + string(rune('0'+min(n, 9)))
		if n > 9 {
			id += strings.Repeat("+", n-9)
		}
	}
	return id
}

// groupID names a group of ignored outputs.
func groupID(root, dir string) string {
	h := sha256.Sum256([]byte(root + "\x00" + dir + "\x00group"))
	return "g" + hex.EncodeToString(h[:])[:11]
}

// isBinary reports content a line diff makes no sense of: a NUL byte
// in its first 8000, as git decides.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

// wholeHunk is the one hunk of a whole-file item.
func wholeHunk(rel string, w *Whole, conflicts map[string]string) Hunk {
	base := formPhrase(w.BaseForm, w.BaseSize, w.BaseTarget)
	id := hunkID(rel, "whole\x00"+base, w.Describe(rel), map[string]int{})
	return Hunk{ID: id, Label: w.Describe(rel), Conflict: conflicts[id]}
}
