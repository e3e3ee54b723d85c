//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// connCounter counts the connections a listener accepted.
type connCounter struct {
	mu      sync.Mutex
	n       int32
	changed chan struct{} // closed and replaced on every accept
}

// countingListener accepts connections on l and counts them.
func countingListener(t *testing.T, l net.Listener) *connCounter {
	t.Helper()
	c := &connCounter{changed: make(chan struct{})}
	t.Cleanup(func() { l.Close() })
	go c.serve(l)
	return c
}

func (c *connCounter) serve(l net.Listener) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		c.mu.Lock()
		c.n++
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
		conn.Close()
	}
}

// Load is the number of connections accepted so far.
func (c *connCounter) Load() int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// AtLeast waits until n connections have been accepted. A client can
// connect and exit before the accepting goroutine runs, so a command
// that printed "connected" is awaited here, not checked at once. The
// bound only ends a test whose listener never sees the connection.
func (c *connCounter) AtLeast(n int32) bool {
	deadline := time.After(time.Minute)
	for {
		c.mu.Lock()
		got, changed := c.n, c.changed
		c.mu.Unlock()
		if got >= n {
			return true
		}
		select {
		case <-changed:
		case <-deadline:
			return false
		}
	}
}

// A client's connection is complete before the listener accepts it:
// here nothing accepts until the client is done, so a counter read at
// once says 0, and AtLeast waits for the accept.
func TestConnCounterWaitsForTheAccept(t *testing.T) {
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	conn, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	c := &connCounter{changed: make(chan struct{})}
	if n := c.Load(); n != 0 {
		t.Fatalf("counted %d before any accept", n)
	}
	go c.serve(l)
	if !c.AtLeast(1) {
		t.Errorf("the completed connection was never counted")
	}
}

// hostPython is the real python3 binary (not a version manager's shim,
// which needs the real home), or "" without one.
func hostPython() string {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// connectCommands are ways a command can open a TCP connection that no
// command-line guard can read: perl and python sockets.
func connectCommands(t *testing.T, addr string) []string {
	host, port, _ := net.SplitHostPort(addr)
	var cmds []string
	if _, err := exec.LookPath("perl"); err == nil {
		cmds = append(cmds, `perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr=>"`+host+`", PeerPort=>`+port+`, Timeout=>3) or die "refused: $!\n"; print "connected\n"'`)
	}
	if py := hostPython(); py != "" {
		cmds = append(cmds, py+` -c 'import socket; socket.create_connection(("`+host+`", `+port+`), 3); print("connected")'`)
	}
	if testenv.Required() {
		// CI tries both ways.
		testenv.NeedsTool(t, "perl", "opening sockets from a command", "apt-get install perl")
		testenv.Needs(t, len(cmds) == 2, "python3 outside a version manager's shim", "hostPython found none", "apt-get install python3")
	}
	testenv.Needs(t, len(cmds) > 0, "perl or python3", "neither is on PATH", "apt-get install perl python3")
	return cmds
}

// TestSandboxNoNetworkByDefault: loopback, private and metadata
// addresses are unreachable without the network policy, by any route;
// with it the host's network is there.
func TestSandboxNoNetworkByDefault(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		if splitOnly {
			testenv.NeedsSandbox(t, features.Net != 0, "TCP blocking without namespaces (Landlock ABI 4+)", fmt.Sprintf("Landlock ABI %d", features.ABI))
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hits := countingListener(t, l)
		targets := []string{l.Addr().String(), "169.254.169.254:80", "10.0.0.1:80"}
		if ip := privateAddr(); ip != "" {
			pl, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
			if err == nil {
				countingListener(t, pl)
				targets = append(targets, pl.Addr().String())
			}
		}
		for _, target := range targets {
			for _, cmd := range connectCommands(t, target) {
				if out := c.run(cmd, Policy{WriteWorkspace: true}); strings.Contains(out, "connected\n") {
					t.Errorf("reached %s without the network policy: %s\n%s", target, cmd, out)
				}
			}
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the host's loopback listener saw %d connections", n)
		}
		connected := int32(0)
		for _, cmd := range connectCommands(t, l.Addr().String()) {
			if out := c.run(cmd, Policy{Network: true}); !strings.Contains(out, "connected\n") {
				t.Errorf("with the network policy, %s failed: %s", cmd, out)
			} else {
				connected++
			}
		}
		if !hits.AtLeast(connected) {
			t.Errorf("with the network policy, %d commands printed that they connected, but the host listener accepted %d connections", connected, hits.Load())
		}
		if !splitOnly {
			// The private network keeps its own loopback: tests that
			// start a server on 127.0.0.1 still work.
			if _, err := exec.LookPath("perl"); err == nil {
				out := c.run(`perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(Listen=>1, LocalAddr=>"127.0.0.1:0") or die "listen: $!\n"; IO::Socket::INET->new(PeerAddr=>"127.0.0.1:".$s->sockport) or die "connect: $!\n"; print "own-loopback\n"'`, Policy{})
				if !strings.Contains(out, "own-loopback\n") {
					t.Errorf("the command's own loopback does not work: %q", out)
				}
			}
		}
	})
}

// privateAddr returns one of this machine's non-loopback IPv4 addresses.
func privateAddr() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}
