//go:build !unix

package changeset

import (
	"context"
	"io/fs"
	"os"
)

// flockWait has no lock to take here: operations are one at a time
// within a process only.
func flockWait(context.Context, *os.File) error { return nil }

func inode(fs.FileInfo) int64 { return 0 }
