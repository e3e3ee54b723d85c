package changeset

import (
	"context"
	"crypto/sha256"
	"io/fs"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// A file the run wrote just before a command (an edit, then at once the
// test that checks it) bears a change time within clockSlack of the
// command's Prepare, so its time cannot tell whether the command wrote
// it too. Such files are remembered at Prepare by what the layer holds,
// and one the command left as it was is not reported as the command's:
// the model would read it again for nothing.

// upperState is what the layer held at one path: its type and mode, and
// the content's hash for a regular file.
type upperState struct {
	mode fs.FileMode
	sum  [sha256.Size]byte
}

// rememberRecent records the state of every pending file of l's roots
// written after l.start. s.mu is held.
func (l *layer) rememberRecent() map[string]upperState {
	var out map[string]upperState
	for _, root := range l.roots {
		f, ok := l.s.folders[root]
		if !ok {
			continue
		}
		for rel := range l.s.pending[root] {
			fi, err := f.statUpper(rel)
			if err != nil || !fi.ModTime().After(l.start) {
				continue
			}
			if out == nil {
				out = map[string]upperState{}
			}
			out[pathOf(root, rel).Abs] = upperStateOf(f, rel, fi.Mode())
		}
	}
	return out
}

// unchanged reports whether rel, written just before the command, is as
// the command found it.
func (l *layer) unchanged(f *folder, rel string) bool {
	was, ok := l.recent[pathOf(f.root, rel).Abs]
	if !ok {
		return false
	}
	fi, err := f.statUpper(rel)
	return err == nil && upperStateOf(f, rel, fi.Mode()) == was
}

// upperStateOf is the state of rel in the layer, whose mode is mode.
func upperStateOf(f *folder, rel string, mode fs.FileMode) upperState {
	st := upperState{mode: mode}
	if mode.IsRegular() {
		// Streamed: a file of gigabytes costs one buffer.
		if sum, _, err := safefile.HashBeneath(context.Background(), f.layer.Upper, rel); err == nil {
			st.sum = sum
		}
	}
	return st
}
