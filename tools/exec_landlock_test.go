//go:build linux

package tools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestExecLandlockConfinement(t *testing.T) {
	active, desc := SandboxStatus()
	if !active {
		t.Skipf("Landlock confinement cannot be verified on this machine: %s", desc)
	}
	t.Logf("sandbox: %s", desc)
	r, root := execContext(t, ExecOptions{})
	if err := os.MkdirAll(filepath.Join(root, ".catbuddy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".catbuddy", "secret"), []byte("state-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory outside the workspace and the temp directories.
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skipf("no home directory to hold a directory outside the sandbox: %v", err)
	}
	outside, err := os.MkdirTemp(home, ".cb-ls-landlock-test-")
	if err != nil {
		t.Skipf("cannot create a directory outside the temp dirs: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	if err := os.WriteFile(filepath.Join(outside, "readable"), []byte("outside-content"), 0o644); err != nil {
		t.Fatal(err)
	}

	run := func(cmd string) string {
		t.Helper()
		res, err := runExecTool(t, t.Context(), r, map[string]any{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Output, "[sandbox: on") {
			t.Fatalf("result does not report confinement: %q", res.Output)
		}
		return res.Output
	}

	// Writing outside the workspace fails; reading there works.
	out := run("echo x > " + outside + "/written; echo rc=$?; cat " + outside + "/readable")
	if !strings.Contains(out, "Permission denied") || !strings.Contains(out, "outside-content") {
		t.Errorf("outside write/read: %q", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "written")); err == nil {
		t.Errorf("the sandboxed command wrote outside the workspace")
	}

	// Inside the workspace and in /tmp everything works.
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = run("mkdir -p src/new && echo inside > src/new/a && cat src/new/a && echo t > " + t.TempDir() + "/t && echo tmp-ok")
	if !strings.Contains(out, "inside\n") || !strings.Contains(out, "tmp-ok") {
		t.Errorf("inside write/read: %q", out)
	}

	// Where namespaces work, .catbuddy/ is hidden rather than split
	// around, so a file created in the root can be read back at once.
	if namespacesWork() {
		out = run("echo top > top.txt && cat top.txt && d=.catbudd && ls -a ${d}y | wc -l")
		if !strings.Contains(out, "top\n") || !strings.Contains(out, "2\n") {
			t.Errorf("new root file / hidden .catbuddy: %q", out)
		}
	} else {
		t.Logf("user namespaces unavailable: .catbuddy/ protected by split grants")
	}

	// .catbuddy/ cannot be read, even spelled so the command guard (a
	// floor, not the boundary) does not recognise it.
	out = run(`d=.catbudd; cat ${d}y/secret; echo rc=$?`)
	if strings.Contains(out, "state-secret") || !strings.Contains(out, "rc=1") {
		t.Errorf(".catbuddy read: %q", out)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".catbuddy", "secret")); err != nil || string(b) != "state-secret" {
		t.Errorf("the host's .catbuddy/ changed: %q, %v", b, err)
	}

	// The server is outside the sandbox's signal scope (ABI 6+).
	if probeABI >= 6 {
		out = run("kill -0 " + strconv.Itoa(os.Getpid()) + "; echo rc=$?")
		if !strings.Contains(out, "rc=1") {
			t.Errorf("sandboxed command could signal the server: %q", out)
		}
	}

	// The server itself is not confined.
	if err := os.WriteFile(filepath.Join(outside, "server"), []byte("ok"), 0o644); err != nil {
		t.Errorf("the server became confined: %v", err)
	}
}

func TestPlanSandboxSplitsAroundStateDir(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".catbuddy", "src", ".git"} {
		os.Mkdir(filepath.Join(root, d), 0o755)
	}
	rules := planSandbox([]string{root}, root, nil)
	grants := map[string]uint64{}
	for _, r := range rules {
		grants[r.Path] |= r.Access
	}
	if a, ok := grants[filepath.Join(root, ".catbuddy")]; ok {
		t.Errorf(".catbuddy granted %b", a)
	}
	if grants[root]&llReadFile != 0 {
		t.Errorf("the root (which holds .catbuddy) is granted file reads")
	}
	if grants[filepath.Join(root, "src")]&(llReadFile|llWriteFile) != llReadFile|llWriteFile {
		t.Errorf("src not granted read+write: %b", grants[filepath.Join(root, "src")])
	}
	if grants["/"]&llReadFile != 0 {
		t.Errorf("/ granted file reads although it holds .catbuddy")
	}
}

// TestExecLandlockSplitFallback checks the confinement used where user
// namespaces are unavailable: grants split around .catbuddy/.
func TestExecLandlockSplitFallback(t *testing.T) {
	if active, desc := SandboxStatus(); !active {
		t.Skipf("Landlock confinement cannot be verified on this machine: %s", desc)
	}
	splitOnly = true
	t.Cleanup(func() { splitOnly = false })
	r, root := execContext(t, ExecOptions{})
	os.MkdirAll(filepath.Join(root, ".catbuddy"), 0o755)
	os.WriteFile(filepath.Join(root, ".catbuddy", "secret"), []byte("state-secret"), 0o600)
	os.Mkdir(filepath.Join(root, "src"), 0o755)
	res, err := runExecTool(t, t.Context(), r, map[string]any{"command": `d=.catbudd; cat ${d}y/secret; echo rc=$?; echo in > src/f && cat src/f`})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "state-secret") || !strings.Contains(res.Output, "rc=1") || !strings.Contains(res.Output, "in\n") {
		t.Errorf("split confinement: %q", res.Output)
	}
}
