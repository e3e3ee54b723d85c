package safefile

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var (
	errNoOpenat2 = errors.New("openat2 is not available")
	// noOpenat2 is set once openat2 failed as missing (kernel < 5.6) or
	// filtered (a seccomp policy answering EPERM or ENOSYS).
	noOpenat2 atomic.Bool
)

// openat2Beneath opens name below dirfd in one call, refusing any
// symlink and any escape from dirfd.
func openat2Beneath(dirfd int, name string, flag int, perm uint32) (int, error) {
	if noOpenat2.Load() {
		return -1, errNoOpenat2
	}
	how := unix.OpenHow{Flags: uint64(flag), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if flag&unix.O_CREAT != 0 {
		how.Mode = uint64(perm)
	}
	for {
		fd, err := unix.Openat2(dirfd, name, &how)
		switch {
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			// EAGAIN: a rename raced the lookup; the kernel asks to retry.
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM) && !fileError(dirfd, name):
			noOpenat2.Store(true)
			return -1, errNoOpenat2
		}
		return fd, err
	}
}

// fileError tells an EPERM from the file (a permission on it) from one
// from a seccomp filter: openat with the same name answers the same for
// the former.
func fileError(dirfd int, name string) bool {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err == nil {
		unix.Close(fd)
		return false
	}
	return errors.Is(err, unix.EPERM)
}

// UseOpenat2 turns the openat2 path on or off and reports whether it
// was on. Tests use it to run the openat fallback of kernels before 5.6.
func UseOpenat2(on bool) (was bool) { return !noOpenat2.Swap(!on) }
