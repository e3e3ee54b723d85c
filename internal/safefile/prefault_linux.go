package safefile

import "golang.org/x/sys/unix"

func prefault(content []byte) { _ = unix.Madvise(content, unix.MADV_POPULATE_READ) }
