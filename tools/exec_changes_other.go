//go:build !unix

package tools

import "io/fs"

// inodeOf is 0 where the system has no inode numbers; size and mtime
// still show a change.
func inodeOf(fs.FileInfo) uint64 { return 0 }
