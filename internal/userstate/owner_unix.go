//go:build unix

package userstate

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	oNoFollow = unix.O_NOFOLLOW
	oNonBlock = unix.O_NONBLOCK
)

// checkOwner refuses a state directory that is not this user's or that
// others may write: whoever writes it could plant a change set that a
// listing would act on.
func checkOwner(r *os.Root, where string) error {
	fi, err := r.Stat(".")
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the state directory %s belongs to user %d, not to this user (%d); cb-ls keeps nothing there", where, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("the state directory %s may be written by other users (mode %v); cb-ls keeps nothing there until it is 0700 (chmod 700 %s)", where, fi.Mode().Perm(), where)
	}
	return nil
}
