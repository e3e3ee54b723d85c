package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// UnprivilegedEnv is set in a rerun as an ordinary user, so that the
// rerun of a test never reruns itself.
const UnprivilegedEnv = "CB_LS_TEST_UNPRIVILEGED"

// RerunUnprivileged reruns the tests of this test binary that run
// matches as uid 65534 (nobody), which is what most users are, from a
// copy of the binary in a directory of its own that is also HOME, and
// returns the verbose output of a run that passed. It ends t unless the
// tests run as root (CI does), and fails t if the rerun fails; lines
// that skip or log are logged. Under RequireEnv the rerun may not skip
// either.
func RerunUnprivileged(t *testing.T, run string) string {
	t.Helper()
	if os.Getenv(UnprivilegedEnv) != "" {
		t.Fatal("the unprivileged rerun must not run itself again: its -test.run names the tests")
	}
	Needs(t, os.Getuid() == 0, "root (to rerun the tests as uid 65534)", fmt.Sprintf("running as uid %d", os.Getuid()), "run the tests as root, as .ci/run does")
	dir, err := os.MkdirTemp("", "cb-ls-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.count=1", "-test.v", "-test.run", run)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, UnprivilegedEnv + "=1", "TMPDIR=" + os.TempDir(),
		RequireEnv + "=" + os.Getenv(RequireEnv)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err != nil || !strings.Contains(out, "\nPASS") {
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "SKIP") || strings.Contains(line, ".go:") {
			t.Logf("as uid 65534: %s", strings.TrimSpace(line))
		}
	}
	return out
}
