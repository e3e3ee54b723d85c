package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock, driven by its three system calls. go-landlock restricts
// every thread of the calling process through libcap/psx, which with
// cgo wraps pthread_create in every binary that links it; the
// sandbox helper restricts one locked thread and at once replaces the
// process with execve, which keeps that thread's domain, so the raw
// calls are all it needs. The server itself is never confined.

const (
	llExecute     = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWriteFile   = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llReadFile    = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir     = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llRefer       = unix.LANDLOCK_ACCESS_FS_REFER    // ABI 2
	llTruncate    = unix.LANDLOCK_ACCESS_FS_TRUNCATE // ABI 3
	llIoctlDev    = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llResolveUnix = unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX // newer kernels: connecting to path-named sockets

	// llWrite includes connecting to sockets beneath (where the kernel
	// can restrict that): a command reaches the sockets in the places it
	// may write, and no others.
	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev
	llRead       = llExecute | llReadFile | llReadDir
	llWrite      = llWriteFile | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM | llRefer | llTruncate | llIoctlDev | llResolveUnix

	llNetTCP = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP // ABI 4
	llNetUDP = unix.LANDLOCK_ACCESS_NET_BIND_UDP | unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP

	llScope = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL // ABI 6
)

// landlockABI returns the kernel's Landlock ABI version, or an error
// saying why Landlock cannot be used.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		switch errno {
		case unix.ENOSYS:
			return 0, fmt.Errorf("the kernel was built without Landlock")
		case unix.EOPNOTSUPP:
			return 0, fmt.Errorf("the kernel has Landlock disabled at boot (lsm= does not list landlock)")
		}
		return 0, fmt.Errorf("landlock_create_ruleset: %v", errno)
	}
	return int(v), nil
}

// landlockFeatures is what this kernel's Landlock can restrict.
type landlockFeatures struct {
	ABI int
	// FS is every filesystem right it handles.
	FS uint64
	// Net are the network rights it handles (TCP from ABI 4, UDP later).
	Net uint64
	// Scoped holds the ABI 6 scopes (abstract sockets, signals).
	Scoped uint64
}

// probeLandlock finds out which rights the kernel handles. Bits newer
// than an ABI number we know of are tried directly: the kernel refuses
// a ruleset naming a right it does not know.
func probeLandlock(abi int) landlockFeatures {
	f := landlockFeatures{ABI: abi, FS: llRead | llWrite | llResolveUnix}
	if abi < 2 {
		f.FS &^= llRefer
	}
	if abi < 3 {
		f.FS &^= llTruncate
	}
	if abi < 5 {
		f.FS &^= llIoctlDev
	}
	if !rulesetWorks(unix.LandlockRulesetAttr{Handled_access_fs: f.FS}) {
		f.FS &^= llResolveUnix
	}
	if abi >= 4 {
		f.Net = llNetTCP
		if rulesetWorks(unix.LandlockRulesetAttr{Handled_access_fs: f.FS, Handled_access_net: llNetTCP | llNetUDP}) {
			f.Net |= llNetUDP
		}
	}
	if abi >= 6 {
		f.Scoped = llScope
	}
	return f
}

func rulesetWorks(attr unix.LandlockRulesetAttr) bool {
	fd, err := createRuleset(attr)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

func createRuleset(attr unix.LandlockRulesetAttr) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %v", errno)
	}
	return int(fd), nil
}

// restrictSelf confines the calling thread (locked by the caller) to
// rules; with denyNet it may open no TCP (or, where the kernel can say
// so, UDP) connection or listener.
func restrictSelf(f landlockFeatures, rules []rule, denyNet bool) error {
	attr := unix.LandlockRulesetAttr{Handled_access_fs: f.FS, Scoped: f.Scoped}
	if denyNet {
		attr.Handled_access_net = f.Net
	}
	fd, err := createRuleset(attr)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for _, r := range rules {
		if err := addPathRule(fd, r.Path, r.Access&f.FS); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	if _, _, errno := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %v", errno)
	}
	return nil
}

// addPathRule grants access beneath path. A path that vanished since
// the spec was built is skipped; rights that only make sense on
// directories are dropped for files.
func addPathRule(rulesetFD int, path string, access uint64) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileRights
	}
	if access == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(pfd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %v", path, errno)
	}
	return nil
}
