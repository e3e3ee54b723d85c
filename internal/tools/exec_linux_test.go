package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestExecUserDirsUnderTemp: wherever the user's catbuddy config and
// state live under the system temp directory, the exec tool, as the
// agent calls it, runs a command read-only without asking and an
// approved write in the private namespaces. (The sandbox's own tests
// check what such commands can reach.)
func TestExecUserDirsUnderTemp(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Namespaces, "user namespaces", info.Summary)
	for _, layout := range []string{"own temp dirs", "own temp dirs, missing", "home under temp, missing", "inside the workspace, missing"} {
		t.Run(layout, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CACHE_HOME", "")
			tc, root := execToolContext(t, ExecOptions{})
			var cfg, state string
			switch layout {
			case "own temp dirs", "own temp dirs, missing":
				cfg, state = t.TempDir(), t.TempDir()
			case "home under temp, missing":
				cfg, state = filepath.Join(home, ".config"), filepath.Join(home, ".local", "state")
			case "inside the workspace, missing":
				cfg, state = filepath.Join(root, "xdg-config"), filepath.Join(root, "xdg-state")
			}
			t.Setenv("XDG_CONFIG_HOME", cfg)
			t.Setenv("XDG_STATE_HOME", state)
			if !strings.HasSuffix(layout, "missing") {
				writeTestFile(t, filepath.Join(cfg, "catbuddy", "config.json"), "PRIVATE-KEY-xdg-config")
				writeTestFile(t, filepath.Join(state, "catbuddy", "trust.json"), "PRIVATE-KEY-xdg-trust")
			}
			r := NewRegistry()
			if err := r.Register(Exec(tc)); err != nil {
				t.Fatal(err)
			}
			res, err := runExecTool(t, t.Context(), r, map[string]any{"command": "echo tool > tool.txt"})
			if err != nil || !strings.Contains(res.Output, "workspace read-only") {
				t.Fatalf("read-only call: %+v, %v", res, err)
			}
			if _, err := os.Lstat(filepath.Join(root, "tool.txt")); err == nil {
				t.Errorf("a read-only call created tool.txt: %q", res.Output)
			}
			res, err = runExecTool(t, t.Context(), r, map[string]any{"command": "echo tool > tool.txt", "write": true, "reason": "test"})
			if err != nil || res.IsError || !strings.Contains(res.Output, "private user, mount, network and PID namespaces") {
				t.Fatalf("approved write: %+v, %v", res, err)
			}
			if b, err := os.ReadFile(filepath.Join(root, "tool.txt")); err != nil || string(b) != "tool\n" {
				t.Errorf("tool.txt = %q, %v; want %q", b, err, "tool\n")
			}
		})
	}
}

// TestExecUnprivileged reruns the exec tests that depend on the sandbox
// as an ordinary user (nobody), which is what most users are.
func TestExecUnprivileged(t *testing.T) {
	if os.Getenv("CB_LS_TEST_UNPRIVILEGED") != "" {
		t.Fatal("the unprivileged rerun must not run itself again: its -test.run names the tests")
	}
	testenv.Needs(t, os.Getuid() == 0, "root (to rerun the tests as uid 65534)", fmt.Sprintf("running as uid %d", os.Getuid()), "run the tests as root, as .ci/run does")
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Landlock > 0, "Landlock", info.Summary)
	dir, err := os.MkdirTemp("", "cb-ls-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "tools.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.count=1", "-test.v", "-test.run", "^TestExec(SetsidDaemonDies|UserDirsUnderTemp)$")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CB_LS_TEST_UNPRIVILEGED=1", "TMPDIR=" + os.TempDir(),
		// Under CI the rerun may not skip either.
		testenv.RequireEnv + "=" + os.Getenv(testenv.RequireEnv)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nPASS") {
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	for _, ran := range []string{"--- PASS: TestExecSetsidDaemonDies", "--- PASS: TestExecUserDirsUnderTemp"} {
		if !strings.Contains(string(out), ran) {
			t.Errorf("as uid 65534 the run lacks %q:\n%s", ran, out)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "SKIP") || strings.Contains(line, ".go:") {
			t.Logf("as uid 65534: %s", strings.TrimSpace(line))
		}
	}
}

func TestSandboxInfoOff(t *testing.T) {
	if off := (ExecOptions{NoSandbox: true}).SandboxInfo(); off.Full || off.Landlock != 0 || !strings.Contains(off.Summary, "disabled in configuration") {
		t.Errorf("sandbox turned off: %+v", off)
	}
}
