package tools

import (
	"os"
	"path/filepath"
	"strings"
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
			if err != nil || res.IsError || !strings.Contains(res.Output, "[sandbox: on") {
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
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Landlock > 0, "Landlock", info.Summary)
	out := testenv.RerunUnprivileged(t, "^TestExec(SetsidDaemonDies|UserDirsUnderTemp)$")
	for _, ran := range []string{"--- PASS: TestExecSetsidDaemonDies", "--- PASS: TestExecUserDirsUnderTemp"} {
		if !strings.Contains(out, ran) {
			t.Errorf("as uid 65534 the run lacks %q:\n%s", ran, out)
		}
	}
}

func TestSandboxInfoOff(t *testing.T) {
	if off := (ExecOptions{NoSandbox: true}).SandboxInfo(); off.Full || off.Landlock != 0 || !strings.Contains(off.Summary, "disabled in configuration") {
		t.Errorf("sandbox turned off: %+v", off)
	}
}
