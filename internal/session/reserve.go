package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/userstate"
)

// reservedExt names a run that exists before its first turn: a client
// that creates a session (ACP session/new) may load it in another
// process before it sends any prompt, and the run's id must then be
// known. The marker is empty; the session file replaces it once the
// first turn is stored (AppendTurn).
const reservedExt = ".new"

// Reserve notes runID as a run of root with no turn yet.
func Reserve(root, runID string) error {
	if err := CheckID(runID); err != nil {
		return err
	}
	d, err := DirOf(root)
	if err != nil {
		return err
	}
	dir, err := userstate.OpenPath(d)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	defer dir.Close()
	f, err := dir.OpenFile(runID+reservedExt, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("session: reserve %s: %w", runID, err)
	}
	return f.Close()
}

// Reserved reports whether runID was reserved under root and has no
// stored turn yet.
func Reserved(root, runID string) bool {
	if CheckID(runID) != nil {
		return false
	}
	d, err := DirOf(root)
	if err != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(d, runID+reservedExt))
	return err == nil && fi.Mode().IsRegular()
}

// unreserve removes runID's marker from dir, the sessions directory:
// its session file now exists.
func unreserve(dir *os.Root, runID string) {
	if CheckID(runID) == nil {
		_ = dir.Remove(runID + reservedExt)
	}
}
