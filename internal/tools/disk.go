package tools

import (
	"context"
	"hash/maphash"
	"io/fs"
	"sync"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// Errors a Workspace wraps when a path is not a readable text document.
// Tools match them with errors.Is to answer the model precisely.
var (
	ErrIsDir      = safefile.ErrIsDir
	ErrNotRegular = safefile.ErrNotRegular
	ErrTooLarge   = safefile.ErrTooLarge
)

// DiskWorkspace is the Workspace of the CLI: documents are files, read
// and written through the descriptor of their directory, reached from the
// admitting root without following a symlink (internal/safefile), so that
// nothing outside the root, nor its .catbuddy/, is touched even if a
// symlink appears between check and use.
type DiskWorkspace struct {
	// Durable makes Apply fsync each file before renaming it into place.
	// It is off by default, as in the editors' own saves (VS Code does
	// not fsync): the rename already makes the write atomic for every
	// reader, and an fsync of a large file costs more than the edit
	// (about 130 ms for 10 MB on the CI disk).
	Durable bool
}

// Read implements Workspace.
func (DiskWorkspace) Read(ctx context.Context, p guard.Path) (Document, error) {
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	dir, base, err := safefile.OpenParent(p.Root, p.Rel)
	if err != nil {
		return Document{}, err
	}
	defer dir.Close()
	return readIn(dir, base, p.Rel)
}

// readIn reads name inside dir; rel names it in errors.
func readIn(dir *safefile.Dir, name, rel string) (Document, error) {
	content, fi, err := dir.ReadRegular(name, rel)
	if err != nil {
		return Document{}, err
	}
	return Document{Content: content, Stamp: stampOf(fi), Mode: fi.Mode().Perm()}, nil
}

// Apply implements Workspace: ApplyAll of one change. Every step works
// through the descriptor of the file's directory, opened without
// following a symlink (internal/safefile), so the write lands in the directory
// the guard admitted even if its path is swapped meanwhile.
func (w DiskWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	docs, err := w.ApplyAll(ctx, []Change{c})
	if err != nil {
		return Document{}, err
	}
	return docs[0], nil
}

// applyLocks serialise Apply per file within the process; striped so
// that the set never grows.
var applyLocks [64]sync.Mutex

var lockSeed = maphash.MakeSeed()

func applyLockIndex(abs string) int {
	return int(maphash.String(lockSeed, abs) % uint64(len(applyLocks)))
}

func stampOf(fi fs.FileInfo) filestate.Stamp {
	return filestate.Stamp{ModTime: fi.ModTime(), Size: fi.Size(), Version: -1}
}
