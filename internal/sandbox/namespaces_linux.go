package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	nsOnce sync.Once
	nsErr  error
	// splitOnly makes tests exercise the fallback used where user
	// namespaces are disabled: the split grants, and Probe() reporting
	// them as the approval sees them there.
	splitOnly bool
)

// ForceSplitGrants confines commands prepared from now on as where user
// namespaces are disabled, by Landlock grants alone, and makes Probe
// report that; off restores the default. Tests of that fallback use it,
// outside this package too (the approval asks differently there).
func ForceSplitGrants(on bool) { splitOnly = on }

// namespacesErr says why this process cannot start children in new
// user, mount, network and PID namespaces, or nil when it can. The
// answer holds for the server's life, so a failure is tried again
// before it counts: a start that failed for want of a free process or
// memory on a loaded machine would otherwise leave every later command
// without its namespaces, outliving the server that started it.
func namespacesErr() error {
	nsOnce.Do(func() {
		err := retryStart(func() error {
			cmd := exec.Command("/bin/true")
			cmd.SysProcAttr = namespaceAttr(Policy{})
			return cmd.Run()
		}, time.Sleep)
		if err != nil {
			nsErr = fmt.Errorf("user namespaces are not available: %v", err)
		}
	})
	return nsErr
}

// retryStart calls start up to four times, 10, 40 and 160 ms apart,
// until it succeeds, and returns its last error.
func retryStart(start func() error, sleep func(time.Duration)) error {
	wait := 10 * time.Millisecond
	for try := 1; ; try++ {
		err := start()
		if err == nil || try == 4 {
			return err
		}
		sleep(wait)
		wait *= 4
	}
}

// namespaceAttr starts a process group leader in new user, mount and PID
// namespaces, and a new network namespace unless the policy grants the
// network. Only our own uid and gid are mapped. When the leader (the
// namespace's init) exits, the kernel kills every process left in the
// PID namespace, setsid daemons included; Pdeathsig ends it when the
// server dies. The helper keeps, across its own execve, the capabilities
// it needs inside the new namespaces (an unprivileged user's process
// would lose them there): to mount (SYS_ADMIN; DAC_OVERRIDE and FOWNER
// for the overlay's work directory), to bring up lo (NET_ADMIN) and to
// drop them all again (SETPCAP), which dropCapabilities does before the
// command runs. Inside a user namespace they reach only files of the
// user's own uid.
func namespaceAttr(p Policy) *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID)
	if !p.Network {
		flags |= syscall.CLONE_NEWNET
	}
	return &syscall.SysProcAttr{
		Setpgid:     true,
		Pdeathsig:   syscall.SIGKILL,
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER},
	}
}

// dropCapabilities empties the bounding, inheritable and ambient sets
// of the calling thread, so the command it executes holds no capability
// at all, inside its own namespaces or, when the server runs as root,
// on the host: nothing it runs can unmount what hides a secret, load a
// module or configure a network. Where there is nothing to drop (an
// ordinary user without namespaces) the kernel's EPERM is no failure.
func dropCapabilities() error {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL && err != unix.EPERM {
			return fmt.Errorf("drop capability %d: %v", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %v", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear inheritable capabilities: %v", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %v", err)
	}
	return nil
}

// mountOp is one step of applyMounts.
type mountOp struct {
	path  string
	kind  int // opLayer, opPrivate, opHide, opHideFile, opReadOnly
	layer int // the index in nsMounts.Layers, for opLayer
}

const (
	opLayer = iota
	opPrivate
	opHide
	opHideFile
	opReadOnly
)

// applyMounts makes m's mounts, outermost first so that a path bound
// back under /tmp is in place before its own .catbuddy/ is hidden. It
// refuses unless this process is in a mount namespace of its own, so a
// helper started without one can never change the host's mounts.
func applyMounts(m *nsMounts) error {
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil || m.ParentNS == "" || self == m.ParentNS {
		return errors.New("not in a private mount namespace")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %v", err)
	}
	// The layers' directories are opened before anything is mounted:
	// once /tmp or .catbuddy/ is covered, their paths lead nowhere.
	layers, err := openLayers(m.Layers)
	if err != nil {
		return err
	}
	defer layers.close()
	// A layer comes first among mounts at the same path, so a read-only
	// workspace is the merged view made read-only.
	var ops []mountOp
	for i, l := range m.Layers {
		ops = append(ops, mountOp{path: l.Lower, kind: opLayer, layer: i})
	}
	for _, p := range m.Private {
		ops = append(ops, mountOp{path: p, kind: opPrivate})
	}
	for _, p := range m.Hide {
		ops = append(ops, mountOp{path: p, kind: opHide})
	}
	for _, p := range m.HideFiles {
		ops = append(ops, mountOp{path: p, kind: opHideFile})
	}
	for _, p := range m.ReadOnly {
		ops = append(ops, mountOp{path: p, kind: opReadOnly})
	}
	slices.SortStableFunc(ops, func(a, b mountOp) int { return len(a.path) - len(b.path) })
	hidden := append(append([]string{}, m.Private...), m.Hide...)
	for _, op := range ops {
		if _, err := os.Lstat(op.path); err != nil && os.IsNotExist(err) {
			continue // under a directory covered earlier: already gone
		}
		var err error
		switch op.kind {
		case opLayer:
			if err = layers.mount(op.layer); err != nil {
				return &layerError{lower: op.path, err: err}
			}
		case opPrivate, opHide:
			err = coverDir(op.path, op.kind == opPrivate, keepsUnder(op.path, hidden, m.Keep))
		case opHideFile:
			err = unix.Mount("/dev/null", op.path, "", unix.MS_BIND, "")
		case opReadOnly:
			if err = unix.Mount(op.path, op.path, "", unix.MS_BIND|unix.MS_REC, ""); err == nil {
				err = setReadOnly(op.path)
			}
		}
		if err != nil {
			return fmt.Errorf("mount over %s: %v", op.path, err)
		}
	}
	if m.GoCache != nil {
		if err := mountOverlay(m.GoCache); err != nil {
			// Not on the command's stderr, where every result would carry
			// it: exec says it once, where it matters (see GoCacheCold).
			noteGoCacheCold(m.GoCache, err)
		}
	}
	if o := m.ModCache; o != nil {
		if err := mountOverlay(o); err != nil {
			fmt.Fprintf(os.Stderr, "cb-ls sandbox: the module cache is read-only (no overlay of %s: %v)\n", o.Lower, err)
			if err := unix.Mount(o.Target, o.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("mount over %s: %v", o.Target, err)
			}
			if err := setReadOnly(o.Target); err != nil {
				return fmt.Errorf("mount over %s: %v", o.Target, err)
			}
		}
	}
	return nil
}

// mountOverlay makes o's copy-on-write view, its upper layer on a tmpfs
// that vanishes with the namespace. Kernels whose tmpfs has no user
// xattrs (before 6.6) refuse that upper layer; it then lies on the disk
// under Scratch. For the build cache it is best effort: without it the
// command builds into the private cache at the same path, cold.
// volatile spares the sync of an upper layer that is thrown away.
func mountOverlay(o *nsOverlay) error {
	opts := "lowerdir=" + o.Lower + ",upperdir=" + o.Upper + ",workdir=" + o.Work + ",userxattr,volatile"
	mount := func() error {
		if err := os.MkdirAll(o.Upper, 0o700); err != nil {
			return err
		}
		if err := os.MkdirAll(o.Work, 0o700); err != nil {
			return err
		}
		return unix.Mount("overlay", o.Target, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts)
	}
	err := unix.Mount("tmpfs", o.Scratch, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700")
	if err == nil {
		if err = mount(); err != nil {
			_ = unix.Unmount(o.Scratch, unix.MNT_DETACH)
		}
	}
	if err != nil {
		err = mount()
	}
	return err
}

// keepsUnder returns the keeps whose nearest hidden ancestor is dir.
func keepsUnder(dir string, hidden []string, keeps []nsKeep) []nsKeep {
	var out []nsKeep
	for _, k := range keeps {
		nearest := ""
		for _, h := range hidden {
			if h != k.Path && isUnder(k.Path, h) && len(h) > len(nearest) {
				nearest = h
			}
		}
		if nearest == dir {
			out = append(out, k)
		}
	}
	return out
}

// coverDir mounts an empty tmpfs over dir and binds keeps back into it;
// the tmpfs stays writable when private, else it becomes read-only.
func coverDir(dir string, private bool, keeps []nsKeep) error {
	trees := make([]int, 0, len(keeps))
	var kept []nsKeep
	for _, k := range keeps {
		fd, err := unix.OpenTree(unix.AT_FDCWD, k.Path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err == unix.ENOENT {
			// Removed since the plan was made (another command's
			// TMPDIR, a test's folder): there is nothing left to keep,
			// and failing here would cost every later command its
			// namespaces.
			continue
		}
		if err != nil {
			return fmt.Errorf("keep %s: %v", k.Path, err)
		}
		trees = append(trees, fd)
		kept = append(kept, k)
		defer unix.Close(fd)
	}
	keeps = kept
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return err
	}
	for i, k := range keeps {
		var st unix.Stat_t
		if err := unix.Fstat(trees[i], &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := os.MkdirAll(k.Path, 0o755); err != nil {
				return err
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(k.Path), 0o755); err != nil {
				return err
			}
			if f, err := os.OpenFile(k.Path, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
		if err := unix.MoveMount(trees[i], "", unix.AT_FDCWD, k.Path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("keep %s: %v", k.Path, err)
		}
		if !k.Writable {
			if err := setReadOnly(k.Path); err != nil {
				return fmt.Errorf("keep %s read-only: %v", k.Path, err)
			}
		}
	}
	if private {
		return nil
	}
	return unix.MountSetattr(unix.AT_FDCWD, dir, 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
}

// setReadOnly makes the mount at path and every mount beneath it
// read-only.
func setReadOnly(path string) error {
	return unix.MountSetattr(unix.AT_FDCWD, path, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
}

// loopbackUp brings up lo in the private network namespace, so a test
// can still listen on and connect to 127.0.0.1 (its own, not the host's).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// mountProc gives the PID namespace its own /proc, so ps and kill see
// only the command's processes. Where the host's /proc is partly masked
// (some containers) the kernel refuses; the command then sees the host's
// processes but, under Landlock's signal scope, cannot signal them.
func mountProc() {
	_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
}
