package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestExecCargoTestReadOnly: `cargo test` on a crate without
// dependencies runs read-only, without a question, because cargo builds
// into the workspace's own CARGO_TARGET_DIR in the private cache; the
// second call finds the first one's build (nothing is compiled again)
// and the workspace holds no target/. (Where the sandbox is partial,
// every command is asked about and may write: read-only is not there.)
func TestExecCargoTestReadOnly(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Full, "full confinement", info.Summary)
	cargo := testenv.NeedsTool(t, "cargo", "cargo test in the read-only sandbox", "apt-get install cargo")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tc, root := execToolContext(t, ExecOptions{})
	tc.Approver = nil // a question would fail the call: read-only must not ask
	writeTestFile(t, filepath.Join(root, "Cargo.toml"), "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	writeTestFile(t, filepath.Join(root, "src", "lib.rs"), "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 2), 4); }\n}\n")
	// The lock file is the project's, made outside the sandbox, as a
	// checkout has it.
	gen := exec.Command(cargo, "generate-lockfile", "--offline")
	gen.Dir = root
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("cargo generate-lockfile: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(root, "target"))
	r := NewRegistry()
	if err := r.Register(Exec(tc)); err != nil {
		t.Fatal(err)
	}
	for i, compiles := range []bool{true, false} {
		res, err := runExecTool(t, t.Context(), r, map[string]any{"command": "cargo test --offline", "timeout": 300})
		if err != nil || res.IsError || !strings.Contains(res.Output, "test result: ok. 1 passed") || !strings.Contains(res.Output, "[exit code 0]") {
			t.Fatalf("call %d: %+v, %v", i+1, res, err)
		}
		if !strings.Contains(res.Output, "workspace read-only") {
			t.Errorf("call %d did not run read-only: %q", i+1, res.Output)
		}
		if got := strings.Contains(res.Output, "Compiling tiny"); got != compiles {
			t.Errorf("call %d compiled tiny: %v, want %v:\n%s", i+1, got, compiles, res.Output)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "target")); err == nil {
		t.Error("the workspace holds target/")
	}
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": `echo "$CARGO_TARGET_DIR"; ls "$CARGO_TARGET_DIR/debug"`})
	dir, _, _ := strings.Cut(res.Output, "\n")
	cache := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "catbuddy-exec", "workspaces")
	if !strings.HasPrefix(dir, cache+"/"+filepath.Base(root)+"-") || !strings.Contains(res.Output, "deps\n") {
		t.Errorf("CARGO_TARGET_DIR is not the workspace's own under %s: %q", cache, res.Output)
	}
}

// TestExecPythonBytecodeOutOfTree: Python's bytecode goes to the
// workspace's own PYTHONPYCACHEPREFIX: the read-only workspace gets no
// __pycache__, and the second import reads the first one's bytecode.
func TestExecPythonBytecodeOutOfTree(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Full, "full confinement", info.Summary)
	testenv.NeedsTool(t, "python3", "Python's bytecode in the read-only sandbox", "apt-get install python3")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tc, root := execToolContext(t, ExecOptions{})
	tc.Approver = nil
	writeTestFile(t, filepath.Join(root, "mod.py"), "VALUE = 42\n")
	r := NewRegistry()
	if err := r.Register(Exec(tc)); err != nil {
		t.Fatal(err)
	}
	// -v names where each module's bytecode was read from or written to.
	cmd := `python3 -v -c 'import mod; print("value", mod.VALUE)' 2>&1 | grep -E '^value|mod\.cpython'`
	src := filepath.Join(root, "mod.py")
	for i, want := range []string{"# created '", ".pyc matches " + src + "\n"} {
		res, err := runExecTool(t, t.Context(), r, map[string]any{"command": cmd})
		if err != nil || !strings.Contains(res.Output, "value 42") {
			t.Fatalf("call %d: %+v, %v", i+1, res, err)
		}
		if !strings.Contains(res.Output, want) || !strings.Contains(res.Output, filepath.Join("catbuddy-exec", "workspaces")) {
			t.Errorf("call %d: want %q, the bytecode in the workspace's own prefix:\n%s", i+1, want, res.Output)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "__pycache__")); err == nil {
		t.Error("the workspace holds __pycache__")
	}
}

// TestExecPytestCacheOutOfTree: pytest keeps its cache in the
// workspace's own directory: a read-only run warns of no cache path it
// cannot create, and the next call's --lf reruns only what failed.
func TestExecPytestCacheOutOfTree(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Full, "full confinement", info.Summary)
	testenv.NeedsTool(t, "pytest", "pytest's cache in the read-only sandbox", "apt-get install python3-pytest")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tc, root := execToolContext(t, ExecOptions{})
	tc.Approver = nil
	writeTestFile(t, filepath.Join(root, "test_two.py"), "def test_passes():\n    assert True\n\ndef test_fails():\n    assert 1 == 2\n")
	r := NewRegistry()
	if err := r.Register(Exec(tc)); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ cmd, want string }{
		{"pytest -q", "1 failed, 1 passed"},
		{"pytest --lf", "1 failed in"},
	} {
		res, err := runExecTool(t, t.Context(), r, map[string]any{"command": c.cmd})
		if err != nil || !strings.Contains(res.Output, c.want) || !strings.Contains(res.Output, "workspace read-only") {
			t.Fatalf("call %d: %+v, %v; want %q", i+1, res, err, c.want)
		}
		if strings.Contains(res.Output, "could not create cache path") || strings.Contains(strings.ToLower(res.Output), "read-only file system") {
			t.Errorf("call %d: pytest could not write its cache:\n%s", i+1, res.Output)
		}
		if i == 1 && (strings.Contains(res.Output, "passed") || !strings.Contains(res.Output, "run-last-failure")) {
			t.Errorf("--lf did not find the first call's failure:\n%s", res.Output)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, ".pytest_cache")); err == nil {
		t.Error("the workspace holds .pytest_cache")
	}
	// Without the variable pytest writes in the tree, which is read-only.
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": "env -u PYTEST_ADDOPTS pytest -q"})
	if !strings.Contains(res.Output, "could not create cache path") {
		t.Errorf("without PYTEST_ADDOPTS pytest did not warn of its cache; is the test still testing it?\n%s", res.Output)
	}
}
