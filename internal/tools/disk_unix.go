//go:build unix

package tools

import "syscall"

// nonblock keeps an open of a FIFO that slipped past Lstat from blocking.
const nonblock = syscall.O_NONBLOCK
