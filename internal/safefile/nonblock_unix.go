//go:build unix

package safefile

import "syscall"

// NonBlock keeps an open of a FIFO that slipped past Lstat from blocking.
const NonBlock = syscall.O_NONBLOCK
