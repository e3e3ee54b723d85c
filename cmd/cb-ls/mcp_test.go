package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMCPListReportsServers(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	os.MkdirAll(filepath.Join(root, ".catbuddy"), 0o755)
	cfg := `{"mcpServers": {"gone": {"command": "` + filepath.Join(root, "missing") + `"}, "off": {"command": "x", "disabled": true}, "bad": {}}}`
	if err := os.WriteFile(filepath.Join(root, ".catbuddy", "mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	// Untrusted: nothing starts.
	if code := run([]string{"mcp", "list", "-root", root}, strings.NewReader(""), &out, &errOut); code != 0 || strings.Contains(out.String(), "gone") ||
		!strings.Contains(errOut.String(), "is not trusted") {
		t.Errorf("untrusted project: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	out.Reset()
	code := run([]string{"mcp", "list", "-root", root, "-trust-project"}, strings.NewReader(""), &out, &errOut)
	if code != 1 {
		t.Errorf("exit code %d, want 1 (a server failed)", code)
	}
	for _, want := range []string{
		"config " + filepath.Join(root, ".catbuddy", "mcp.json") + "\n",
		`server "bad": needs a "command"`,
		"gone: failed (stdio: " + filepath.Join(root, "missing") + ")",
		"no such file or directory",
		"off: disabled",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestMCPListWithoutProjectConfig: a project without .catbuddy/mcp.json
// is not said to be untrusted; there is no file to trust.
func TestMCPListWithoutProjectConfig(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var out, errOut bytes.Buffer
	if code := run([]string{"mcp", "list", "-root", root}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Errorf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if strings.Contains(errOut.String(), "not trusted") || strings.Contains(errOut.String(), "mcp.json") {
		t.Errorf("stderr speaks of an mcp.json that does not exist:\n%s", errOut.String())
	}
}

func TestVersionReportsSandbox(t *testing.T) {
	var out bytes.Buffer
	versionMain(&out)
	if !strings.Contains(out.String(), "\nexec sandbox: ") {
		t.Errorf("version output lacks the sandbox line: %q", out.String())
	}
	// The test binary's own state directory (testenv.PrivateState).
	if want := "\nstate: " + os.Getenv("XDG_STATE_HOME") + "/catbuddy "; !strings.Contains(out.String(), want) {
		t.Errorf("version output lacks %q: %q", want, out.String())
	}
}
