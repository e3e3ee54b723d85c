package tools

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// Landlock, driven by its three system calls. go-landlock restricts
// every thread of the calling process through libcap/psx, which with
// cgo wraps pthread_create in every binary that links tools; the
// sandbox helper below restricts one locked thread and at once replaces
// the process with execve, which keeps that thread's domain, so the raw
// calls are all it needs. The server itself is never confined.

const (
	sysLandlockCreateRuleset = 444 // same number on every architecture
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1
	landlockRulePathBeneath      = 1

	llExecute    = 1 << 0
	llWriteFile  = 1 << 1
	llReadFile   = 1 << 2
	llReadDir    = 1 << 3
	llRemoveDir  = 1 << 4
	llRemoveFile = 1 << 5
	llMakeChar   = 1 << 6
	llMakeDir    = 1 << 7
	llMakeReg    = 1 << 8
	llMakeSock   = 1 << 9
	llMakeFifo   = 1 << 10
	llMakeBlock  = 1 << 11
	llMakeSym    = 1 << 12
	llRefer      = 1 << 13 // ABI 2
	llTruncate   = 1 << 14 // ABI 3

	oPath = 0x200000 // O_PATH on x86 and arm; package syscall does not export it

	llScopeAbstractUnix = 1 << 0 // ABI 6
	llScopeSignal       = 1 << 1 // ABI 6

	llFileRights = llExecute | llWriteFile | llReadFile | llTruncate
	llRead       = llExecute | llReadFile | llReadDir
	llWrite      = llWriteFile | llRemoveDir | llRemoveFile | llMakeChar | llMakeDir | llMakeReg |
		llMakeSock | llMakeFifo | llMakeBlock | llMakeSym | llRefer | llTruncate
)

// landlockABI returns the kernel's Landlock ABI version, or an error
// saying why Landlock cannot be used.
func landlockABI() (int, error) {
	v, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if errno != 0 {
		switch errno {
		case syscall.ENOSYS:
			return 0, fmt.Errorf("the kernel was built without Landlock")
		case syscall.EOPNOTSUPP:
			return 0, fmt.Errorf("Landlock is disabled at boot (lsm= does not list landlock)")
		}
		return 0, fmt.Errorf("landlock_create_ruleset: %v", errno)
	}
	return int(v), nil
}

// handledFS is every filesystem right the given ABI can restrict.
func handledFS(abi int) uint64 {
	h := uint64(llRead | llWrite)
	if abi < 2 {
		h &^= llRefer
	}
	if abi < 3 {
		h &^= llTruncate
	}
	return h
}

var (
	probeOnce sync.Once
	probeABI  int
	probeErr  error
)

// SandboxStatus reports whether exec runs commands under Landlock: a
// short description either way, for the result and `cb-ls version`.
func SandboxStatus() (active bool, desc string) {
	probeOnce.Do(func() {
		probeABI, probeErr = landlockABI()
		if probeErr == nil {
			if _, err := os.Stat("/proc/self/exe"); err != nil {
				probeErr = fmt.Errorf("/proc/self/exe is not available to re-execute the sandbox helper: %v", err)
			}
		}
	})
	if probeErr != nil {
		return false, "not available: " + probeErr.Error()
	}
	return true, fmt.Sprintf("Landlock ABI %d", probeABI)
}

// sandboxCommand returns the program and environment entry that run
// argv confined by spec: this very binary, whose init (below) applies
// Landlock and then executes argv.
func sandboxCommand(spec sandboxSpec) (path, envEntry string, err error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return "", "", err
	}
	return "/proc/self/exe", sandboxEnv + "=" + string(b), nil
}

// init turns any binary linking tools into the sandbox helper when the
// spec variable is set: it confines its own thread and execs the
// command, never returning. Doing it in init (rather than in a cb-ls
// subcommand) makes the same path work from test binaries.
func init() {
	raw, ok := os.LookupEnv(sandboxEnv)
	if !ok {
		return
	}
	os.Unsetenv(sandboxEnv)
	runtime.LockOSThread()
	err := enterSandbox(raw)
	fmt.Fprintf(os.Stderr, "cb-ls sandbox: %v; the command was not run\n", err)
	os.Exit(126)
}

// enterSandbox applies the spec and execs its argv; it returns only on
// failure.
func enterSandbox(raw string) error {
	var spec sandboxSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return fmt.Errorf("bad spec: %v", err)
	}
	if len(spec.Argv) == 0 {
		return fmt.Errorf("bad spec: no command")
	}
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	rules := spec.Rules
	if len(spec.Hide) > 0 {
		if err := hideDirs(spec.Hide, spec.ParentMountNS); err != nil {
			rules = spec.Split
		}
	}
	handled := handledFS(abi)
	attr := [3]uint64{handled, 0, 0}
	size := uintptr(8)
	if abi >= 6 {
		// Scoping keeps the command from signalling processes outside
		// its sandbox (the server) or reaching their abstract sockets.
		attr[2] = llScopeAbstractUnix | llScopeSignal
		size = 24
	}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr[0])), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %v", errno)
	}
	for _, r := range rules {
		if err := addPathRule(int(fd), r.Path, r.Access&handled); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, 38 /* PR_SET_NO_NEW_PRIVS */, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", errno)
	}
	if _, _, errno := syscall.RawSyscall(sysLandlockRestrictSelf, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %v", errno)
	}
	syscall.Close(int(fd))
	return syscall.Exec(spec.Argv[0], spec.Argv, os.Environ())
}

// hideDirs covers each directory with an empty read-only tmpfs. It
// refuses unless this process is in a mount namespace of its own, so a
// helper started without one can never change the host's mounts.
func hideDirs(dirs []string, parentNS string) error {
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil || parentNS == "" || self == parentNS {
		return fmt.Errorf("not in a private mount namespace")
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %v", err)
	}
	for _, d := range dirs {
		if err := syscall.Mount("tmpfs", d, "tmpfs", syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
			return fmt.Errorf("hide %s: %v", d, err)
		}
	}
	return nil
}

var (
	nsOnce sync.Once
	nsOK   bool
	// splitOnly makes tests exercise the fallback used where user
	// namespaces are disabled.
	splitOnly bool
)

// namespacesWork reports whether this process may start children in new
// user and mount namespaces (unprivileged user namespaces enabled).
func namespacesWork() bool {
	nsOnce.Do(func() {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = namespaceAttr()
		nsOK = cmd.Run() == nil
	})
	return nsOK
}

// namespaceAttr starts a process group leader in new user and mount
// namespaces, mapping only our own uid and gid.
func namespaceAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:     true,
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
	}
}

// prepareSandbox plans the confinement of argv. Where namespaces work,
// .catbuddy/ is hidden under a tmpfs and the grants stay whole; else
// (or if hiding fails in the helper) the grants are split around it.
func prepareSandbox(roots []string, workRoot string, extraRW, argv []string) (sandboxSpec, *syscall.SysProcAttr) {
	split := planSandbox(roots, workRoot, extraRW)
	if rules, hide, ok := planHidden(roots, workRoot, extraRW); ok && !splitOnly && namespacesWork() {
		if ns, err := os.Readlink("/proc/self/ns/mnt"); err == nil {
			return sandboxSpec{Rules: rules, Hide: hide, Split: split, ParentMountNS: ns, Argv: argv}, namespaceAttr()
		}
	}
	return sandboxSpec{Rules: split, Argv: argv}, &syscall.SysProcAttr{Setpgid: true}
}

// addPathRule grants access beneath path. A path that vanished since
// the spec was built is skipped; rights that only make sense on
// directories are dropped for files.
func addPathRule(rulesetFD int, path string, access uint64) error {
	pfd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(pfd)
	var st syscall.Stat_t
	if err := syscall.Fstat(pfd, &st); err != nil {
		return nil
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= llFileRights
	}
	if access == 0 {
		return nil
	}
	// struct landlock_path_beneath_attr is packed: u64 then s32.
	var attr [12]byte
	binary.NativeEndian.PutUint64(attr[0:8], access)
	binary.NativeEndian.PutUint32(attr[8:12], uint32(int32(pfd)))
	if _, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(rulesetFD), landlockRulePathBeneath, uintptr(unsafe.Pointer(&attr[0])), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %v", path, errno)
	}
	return nil
}
