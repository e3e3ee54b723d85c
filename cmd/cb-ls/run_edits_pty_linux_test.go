package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// openPTY opens a pseudo-terminal pair: the test types on the master,
// cb-ls run reads the slave as its stdin.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pty's slave: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// On a real terminal (stdinIsTerminal as shipped) with --review, cb-ls
// run asks before an edit and applies it on "y" typed at the terminal.
func TestRunOnAPseudoTerminalAsks(t *testing.T) {
	master, slave := openPTY(t)
	if _, err := master.WriteString("y\n"); err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewServer(t, fixScript())
	root := runEnv(t, srv, "openai")
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "--review", "fix Add"}, slave, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Apply this change to calc.go? [y/N/a]") {
		t.Errorf("no question on the terminal:\n%s", stderr.String())
	}
	if got := readOr(t, filepath.Join(root, "calc.go")); !strings.Contains(got, "return a + b") {
		t.Errorf("the edit answered y on the terminal was not applied:\n%s", got)
	}
}

// On a real terminal, with review "pending" (the default), the run goes
// on without a question and the change set is shown and asked about
// once at the end: "k" keeps it all.
func TestRunOnAPseudoTerminalAsksAtTheEnd(t *testing.T) {
	needsLayer(t)
	master, slave := openPTY(t)
	if _, err := master.WriteString("k\n"); err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewServer(t, fixScript())
	root := runEnv(t, srv, "openai")
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "fix Add"}, slave, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if n := strings.Count(stderr.String(), "[k]eep all"); n != 1 {
		t.Errorf("%d questions at the end, want 1:\n%s", n, stderr.String())
	}
	for _, want := range []string{"calc.go (changed)", "-\treturn a - b", "+\treturn a + b", "kept 1 change(s)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "[y/N/a]") {
		t.Errorf("an edit was asked about while the run went on:\n%s", stderr.String())
	}
	if got := readOr(t, filepath.Join(root, "calc.go")); !strings.Contains(got, "return a + b") {
		t.Errorf("the kept change is not on disk:\n%s", got)
	}
}
