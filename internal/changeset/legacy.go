package changeset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

// Versions of cb-ls before the state directory kept each run's set in
// <folder>/.catbuddy/runs/ and the sessions in .catbuddy/sessions/. A
// cloned project can ship the same directories, and nothing in them
// tells cb-ls's own from a planted one: no user-side record of them was
// ever kept. So none is read, moved or removed. Each folder that has
// them is named once to the user (Legacy), who decides.

// legacyDirs are the old places, relative to a folder.
var legacyDirs = []string{guard.StateDir + "/runs", guard.StateDir + "/sessions"}

// legacyToldName marks, in the folder's state directory, that the user
// was told of its old state directories.
const legacyToldName = "legacy-told"

// Legacy returns one sentence for each of the guard's folders that
// holds an old in-project state directory the user was not told of yet,
// and notes that the user was told: each folder is named once.
func (s *Store) Legacy() []string {
	var out []string
	for _, root := range s.g.Roots() {
		var found []string
		for _, d := range legacyDirs {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d))); err == nil {
				found = append(found, d+"/")
			}
		}
		if len(found) == 0 {
			continue
		}
		st, err := userstate.For(s.base, root)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(st.Path(legacyToldName)); err == nil {
			continue
		}
		dir, err := st.Open()
		if err != nil {
			s.log.Warn("note the old state directories", "folder", root, "error", err)
			continue
		}
		f, err := dir.OpenFile(legacyToldName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		dir.Close()
		if err == nil {
			f.Close()
		} else if !errors.Is(err, fs.ErrExist) {
			s.log.Warn("note the old state directories", "folder", root, "error", err)
		}
		msg := fmt.Sprintf("%s holds %s: an earlier cb-ls kept runs there, or the project shipped them. cb-ls now keeps its state in %s and never reads, keeps or removes anything there; the pending files of an old run are in .catbuddy/runs/<run>/upper/. Look, copy what you want, then delete them.",
			root, joinAnd(found), s.base)
		s.log.Warn("old in-project state directories are not read", "folder", root, "found", found)
		out = append(out, msg)
	}
	return out
}

func joinAnd(s []string) string {
	if len(s) == 2 {
		return s[0] + " and " + s[1]
	}
	return s[0]
}
