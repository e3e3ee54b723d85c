package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Path-named sockets are reached with connect(), which neither a
// read-only mount nor a Landlock read grant stops, and Landlock's
// scoping (ABI 6) covers only abstract sockets. Docker's socket is root
// on the host, an ssh-agent's signs for the user, an editor's runs
// commands. So without the network policy the helper installs a seccomp
// filter that makes socket(AF_UNIX, …) fail with EACCES: no path-named
// socket anywhere can be reached, the command's own included, while
// socketpair(2), which pipes and process pools use and which reaches
// nothing outside, keeps working. io_uring, whose operations (a socket,
// a connect) are not seen by seccomp, fails as if the kernel lacked it.

// seccompArch is the audit architecture of the system calls the filter
// understands, 0 where it has no filter for this GOARCH. Calls made
// through any other ABI (i386 on amd64, arm32 on arm64, x32) kill the
// process: their socket calls carry other numbers.
var seccompArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64,
	"arm64": unix.AUDIT_ARCH_AARCH64,
}[runtime.GOARCH]

// x32Bit marks x32 system calls on amd64 (same audit arch, own numbers).
const x32Bit = 0x40000000

// seccompErr says why the socket filter cannot be installed here, or
// nil when it can.
func seccompErr() error {
	if seccompArch == 0 {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("the kernel has no seccomp: %v", err)
	}
	return nil
}

// unixSocketFilter is the BPF program described above.
func unixSocketFilter() []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
		// Offsets in struct seccomp_data: nr, arch, args[0]'s low word
		// (both architectures are little-endian; the family is an int).
		offNr, offArch, offArg0 = 0, 4, 16
	)
	kill := unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS}
	allow := unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW}
	eacces := unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)}
	enosys := unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)}
	x32 := uint32(0xffffffff) // no system call number is this high: never taken off amd64
	if runtime.GOARCH == "amd64" {
		x32 = x32Bit
	}
	// Jumps count the instructions skipped: jt/jf 0 is the next one.
	return []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, K: seccompArch, Jt: 1}, // native: skip the kill
		kill,
		{Code: ld, K: offNr},
		{Code: jge, K: x32, Jt: 4}, // → kill
		{Code: jeq, K: unix.SYS_IO_URING_SETUP, Jt: 4}, // → enosys
		{Code: jeq, K: unix.SYS_SOCKET, Jf: 5},         // → allow
		{Code: ld, K: offArg0},
		{Code: jeq, K: unix.AF_UNIX, Jt: 2, Jf: 3}, // → eacces, allow
		kill,   // a foreign ABI
		enosys, // io_uring_setup
		eacces, // socket(AF_UNIX, …)
		allow,
	}
}

// denyUnixSockets installs the filter on the calling thread, which the
// command then inherits across execve. PR_SET_NO_NEW_PRIVS must be set.
func denyUnixSockets() error {
	f := unixSocketFilter()
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("install the seccomp filter for unix sockets: %v", err)
	}
	return nil
}
