package changeset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// swapScript exchanges two paths with renameat2(RENAME_EXCHANGE) in a
// tight loop for the given seconds: a file the run changed and a link to
// the user's private key trade places thousands of times.
const swapScript = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
end = time.time() + float(sys.argv[3])
n = 0
while time.time() < end:
    if libc.renameat2(AT_FDCWD, sys.argv[1].encode(), AT_FDCWD, sys.argv[2].encode(), RENAME_EXCHANGE) != 0:
        sys.exit("renameat2: errno %d" % ctypes.get_errno())
    n += 1
print("swapped", n)
`

// TestKeepDuringASwappingCommand: while a command of the editor's
// server swaps a pending file with a link to ~/.ssh/id_rsa, keeps from
// another process (cb-ls changes --keep) are tried again and again. None
// may run while the command does (they wait on the set's lock and give
// up at their deadline), and the keep that runs after it writes the
// key's content nowhere: a link is kept as a link.
func TestKeepDuringASwappingCommand(t *testing.T) {
	needsOverlay(t)
	testenv.NeedsTool(t, "python3", "swapping a file and a link with renameat2", "apt-get install python3")
	fx := newFixture(t, map[string]string{"notes.txt": "notes\n"})
	secret := filepath.Join(t.TempDir(), "id_rsa")
	const key = "-----BEGIN OPENSSH PRIVATE KEY----- SECRETKEYBYTES"
	if err := os.WriteFile(secret, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The project's own script, as a cloned project would ship it.
	writeFile(t, fx.root, "swap.py", swapScript)
	fx.edit(fx.view, "notes.txt", "notes", "notes, edited")
	other, err := Open(fx.g, nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs, ok := other.Get("run-1")
	if !ok {
		t.Fatal("the other process does not see the set")
	}

	const seconds = 4
	done := make(chan string, 1)
	go func() {
		res := fx.execArgs(map[string]any{"write": true, "timeout": 60,
			"command": "ln -s " + secret + " key && python3 swap.py notes.txt key " + fmt.Sprint(seconds)})
		done <- res.Output
	}()
	// The command holds the set's lock from before it starts until its
	// changes are collected: once its link shows in the layer, it runs.
	upper := fx.set.folders[fx.root].layer.Upper
	for start := time.Now(); !isLink(filepath.Join(upper, "key")); {
		if time.Since(start) > 30*time.Second {
			t.Fatal("the command never started")
		}
		time.Sleep(time.Millisecond)
	}
	tries, waited := 0, 0
	var out string
loop:
	for {
		select {
		case out = <-done:
			break loop
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := theirs.Keep(ctx, Selection{}, tools.DiskWorkspace{})
		cancel()
		tries++
		for _, name := range []string{"notes.txt", "key"} {
			if b, _ := os.ReadFile(filepath.Join(fx.root, name)); strings.Contains(string(b), "SECRETKEYBYTES") && !isLink(filepath.Join(fx.root, name)) {
				t.Fatalf("the private key was written into the workspace as %s", name)
			}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			waited++
			continue
		}
		// A keep got the lock: the command's changes were collected, so
		// its result comes at once. A keep that ran while the command
		// still swapped would find it going on for seconds.
		select {
		case out = <-done:
		case <-time.After(seconds * time.Second / 2):
			t.Fatalf("keep %d ran while the command was still running: %v", tries, err)
		}
		break
	}
	t.Logf("%d keeps tried during the command, %d waited; the command: %s", tries, waited, strings.TrimSpace(withoutSandboxNotes(out)))
	if !strings.Contains(out, "swapped") {
		t.Fatalf("the command did not swap:\n%s", out)
	}
	if waited < 5 {
		t.Errorf("only %d keeps waited for the command", waited)
	}
	if _, err := theirs.Keep(t.Context(), Selection{}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"notes.txt", "key"} {
		p := filepath.Join(fx.root, name)
		if isLink(p) {
			if target, _ := os.Readlink(p); target != secret {
				t.Errorf("%s links to %s", name, target)
			}
			continue
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "SECRETKEYBYTES") {
			t.Errorf("%s holds the private key after the keep", name)
		}
	}
}

func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// TestExecPathLongerThanTheSystemAllows: a command makes a file whose
// path is longer than PATH_MAX. It is listed (named as too long, not
// dropped), never kept, and discard takes it out of the layer.
func TestExecPathLongerThanTheSystemAllows(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	d := strings.Repeat("d", 200)
	out := fx.exec("for i in $(seq 25); do mkdir "+d+" && cd "+d+"; done; echo deep > f.txt; echo ok", true)
	if !strings.Contains(out, "ok") {
		t.Fatalf("the command failed:\n%s", out)
	}
	var long *File
	for _, f := range fx.set.Files() {
		if len(f.Path.Rel) > 4096 || f.Whole != nil && f.Whole.Form == FormLongPath {
			long = &f
			break
		}
	}
	if long == nil {
		t.Fatalf("the long path is not listed: %+v", fx.set.Files())
	}
	if long.KeepRefused == "" {
		t.Errorf("a path longer than the system allows is not refused at keep: %+v", long)
	}
	res, err := fx.set.Keep(t.Context(), Selection{}, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Left) == 0 {
		t.Errorf("keep left nothing pending: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(fx.root, d)); !os.IsNotExist(err) {
		t.Errorf("keep made the deep directory: %v", err)
	}
	if _, err := fx.set.Discard(Selection{}); err != nil {
		t.Fatal(err)
	}
	if files := fx.set.Files(); len(files) != 0 {
		t.Errorf("after discard: %+v", files)
	}
	// Gone from the layer too: a new process finds nothing pending.
	fx.reopen()
	if files := fx.set.Files(); len(files) != 0 {
		t.Errorf("after discard and a restart, %d files are pending again", len(files))
	}
}
