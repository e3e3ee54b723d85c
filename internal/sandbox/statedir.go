package sandbox

import (
	"os"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Where user namespaces are missing, commands are confined by Landlock
// grants alone (planSplit). Landlock only adds rights, and a right
// granted on a directory holds for its whole tree: the workspace root
// must be listable (ls, git status and every build list it), so
// .catbuddy/ beneath it is listable too. Its files stay unreadable and
// unwritable, but the names of the user's sessions and of the project's
// settings would not. No grant can exclude one subdirectory from a
// listing right, so on that path the approval decides instead: while a
// root holds a .catbuddy entry, no command runs without the user's say
// (a question, or the user's own allow rules), and the question says why.

// StateNamesListable reports whether a command confined as info says
// could list the names in one of roots' .catbuddy/: the split grants
// are in use and a .catbuddy entry exists. (Where one does not exist, no
// command can create it: the root grants no creation.) Without Landlock
// commands are unconfined and asked about as such.
func StateNamesListable(roots []string, info Info) bool {
	if info.Landlock == 0 || info.Namespaces {
		return false
	}
	for _, r := range roots {
		if _, err := os.Lstat(filepath.Join(r, guard.StateDir)); err == nil {
			return true
		}
	}
	return false
}
