//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// unixConnect is a command connecting to the unix socket addr ("\0name"
// for an abstract one) that prints "connected" when it could.
func unixConnect(addr string) string {
	return `perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer=>"` + addr + `") or die "refused: $!\n"; print "connected\n"'`
}

// TestSandboxSocketsOutsideUnreachable: without the network policy no
// path-named socket can be reached (docker's, an ssh-agent's, an
// editor's), wherever it lies: in the temp directory, under the home
// directory, in /run; nor an abstract one. socketpair still works. With
// the network policy the user chose to let the command reach them, so
// a socket under home answers; abstract ones stay scoped where
// Landlock can scope them.
func TestSandboxSocketsOutsideUnreachable(t *testing.T) {
	testenv.NeedsTool(t, "perl", "opening unix sockets from a command", "apt-get install perl")
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		needsSocketFilter(t)
		sock := "cb-ls-test-" + strconv.Itoa(os.Getpid()) + ".sock"
		dirs := map[string]string{
			"temp":      t.TempDir(),
			"home":      filepath.Join(c.home, ".docker", "run"),
			"workspace": c.root,
			"run":       "/run",
		}
		hits := map[string]*connCounter{}
		for name, dir := range dirs {
			os.MkdirAll(dir, 0o755)
			l, err := net.Listen("unix", filepath.Join(dir, sock))
			if err != nil {
				t.Logf("no socket in %s: %v", dir, err)
				continue
			}
			hits[name] = countingListener(t, l)
			t.Cleanup(func() { os.Remove(filepath.Join(dir, sock)) })
		}
		abstract := "cb-ls-test-abstract-" + strconv.Itoa(os.Getpid())
		al, err := net.Listen("unix", "@"+abstract)
		if err != nil {
			t.Fatal(err)
		}
		abstractHits := countingListener(t, al)

		for _, p := range []Policy{{}, {WriteWorkspace: true}, {WriteWorkspace: true, WriteGit: true}} {
			for name := range hits {
				out := c.run(unixConnect(filepath.Join(dirs[name], sock)), p)
				if strings.Contains(out, "connected\n") || !strings.Contains(out, "Permission denied") {
					t.Errorf("%v: the socket in %s (%s): %q", p, name, dirs[name], out)
				}
			}
			if out := c.run(unixConnect(`\0`+abstract), p); strings.Contains(out, "connected\n") {
				t.Errorf("%v: reached the abstract socket @%s: %q", p, abstract, out)
			}
		}
		for name, n := range hits {
			if n.Load() != 0 {
				t.Errorf("the socket in %s saw %d connections without the network policy", name, n.Load())
			}
		}
		if abstractHits.Load() != 0 {
			t.Errorf("the abstract socket saw %d connections without the network policy", abstractHits.Load())
		}
		if !splitOnly {
			// The private network namespace has none of the host's abstract
			// sockets at all (Landlock's scope and the filter aside).
			host, _ := os.ReadFile("/proc/net/unix")
			if !strings.Contains(string(host), "@"+abstract) {
				t.Fatalf("the host's /proc/net/unix does not list @%s", abstract)
			}
			if out := c.run(`cat /proc/net/unix`, Policy{}); strings.Contains(out, "@"+abstract) || !strings.Contains(out, "Inode Path") {
				t.Errorf("the private network namespace lists the host's abstract socket: %q", out)
			}
			if out := c.run(`cat /proc/net/unix`, Policy{Network: true}); !strings.Contains(out, "@"+abstract) {
				t.Errorf("with the host's network the abstract socket is not listed, so the check above proves nothing: %q", out)
			}
		}
		out := c.run(`perl -MSocket -e 'socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or die "socketpair: $!\n"; print "pair\n"'`, Policy{})
		if !strings.Contains(out, "pair\n") {
			t.Errorf("socketpair does not work without the network policy: %q", out)
		}

		// With the network policy: the user let it reach the host.
		withNet := Policy{Network: true}
		if out := c.run(unixConnect(filepath.Join(dirs["home"], sock)), withNet); !strings.Contains(out, "connected\n") {
			t.Errorf("with the network policy the socket under home is unreachable: %q", out)
		} else if !hits["home"].AtLeast(1) {
			t.Errorf("with the network policy the command connected to the socket under home, but its listener accepted nothing: %q", out)
		}
		if features.Scoped != 0 {
			if out := c.run(unixConnect(`\0`+abstract), withNet); strings.Contains(out, "connected\n") || abstractHits.Load() != 0 {
				t.Errorf("with the network policy, reached the abstract socket outside the sandbox: %q", out)
			}
		}
		out = c.run(`perl -MIO::Socket::UNIX -e '$p="$ENV{TMPDIR}/own.sock"; $s=IO::Socket::UNIX->new(Local=>$p, Listen=>1) or die "listen: $!\n"; IO::Socket::UNIX->new(Peer=>$p) or die "connect: $!\n"; print "own-socket\n"'`, withNet)
		if !strings.Contains(out, "own-socket\n") {
			t.Errorf("with the network policy a socket in the command's TMPDIR does not work: %q", out)
		}
	})
}

// TestSandboxSocketFilterSyscalls checks the seccomp filter at the
// system call level from inside the sandbox: this test binary, copied
// into the workspace, is the command and reports what each call
// returned. Without the network policy every AF_UNIX socket type is
// refused with EACCES and io_uring with ENOSYS; socketpair and an inet
// socket (for the private loopback) work. With it, unix sockets work.
func TestSandboxSocketFilterSyscalls(t *testing.T) {
	if os.Getenv("CB_LS_SECCOMP_PROBE") == "1" {
		probeSocketCalls()
		return
	}
	c := newSandboxCase(t)
	needsSocketFilter(t)
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.root, "probe.test"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	probe := `CB_LS_SECCOMP_PROBE=1 ./probe.test -test.run '^TestSandboxSocketFilterSyscalls$'`
	forEachMode(t, func(t *testing.T) {
		out := c.run(probe, Policy{WriteWorkspace: true})
		for _, want := range []string{"unix-stream: permission denied", "unix-dgram: permission denied", "unix-seqpacket: permission denied",
			"socketpair: ok", "inet: ok", "io_uring_setup: function not implemented"} {
			if !strings.Contains(out, want+"\n") {
				t.Errorf("without the network policy the probe lacks %q: %s", want, out)
			}
		}
		out = c.run(probe, Policy{Network: true})
		for _, want := range []string{"unix-stream: ok", "unix-dgram: ok", "socketpair: ok"} {
			if !strings.Contains(out, want+"\n") {
				t.Errorf("with the network policy the probe lacks %q: %s", want, out)
			}
		}
	})
}

// probeSocketCalls prints the outcome of each call the filter judges.
func probeSocketCalls() {
	report := func(name string, err error) {
		if err == nil {
			fmt.Printf("%s: ok\n", name)
		} else {
			fmt.Printf("%s: %v\n", name, err)
		}
	}
	for name, typ := range map[string]int{"unix-stream": unix.SOCK_STREAM, "unix-dgram": unix.SOCK_DGRAM | unix.SOCK_CLOEXEC, "unix-seqpacket": unix.SOCK_SEQPACKET} {
		fd, err := unix.Socket(unix.AF_UNIX, typ, 0)
		report(name, err)
		unix.Close(fd)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	report("socketpair", err)
	unix.Close(fds[0])
	unix.Close(fds[1])
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	report("inet", err)
	unix.Close(fd)
	var params [120]byte // struct io_uring_params
	r, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
	if errno != 0 {
		report("io_uring_setup", errno)
	} else {
		report("io_uring_setup", nil)
		unix.Close(int(r))
	}
}
