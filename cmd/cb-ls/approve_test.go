package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/sandbox"
)

// The red-team commands through cb-ls tools run: the guard refuses what
// it cannot check, and --approve none (the default) refuses the rest.
func TestToolsRunApproval(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "keep.txt")
	os.WriteFile(keep, []byte("keep\n"), 0o644)
	s := startTools(t, "--root", dir)
	for cmd, why := range map[string]string{
		"`echo rm` -rf ~":                    "known only at run time",
		"$(echo rm) -rf ~":                   "known only at run time",
		"echo cm0gLXJmIH4= | base64 -d | sh": "runs data piped into it",
	} {
		r := s.call("exec", map[string]any{"command": cmd})
		if !r.IsError || !strings.Contains(r.Output, why) {
			t.Errorf("%q = %+v, want a refusal mentioning %q", cmd, r, why)
		}
	}
	// Without write access a confined command meets a read-only
	// workspace; an unconfined one must be approved, and is not.
	why := "--approve none"
	if sandbox.Probe().Full {
		why = "Read-only file system"
	}
	for _, cmd := range []string{"rm keep.txt", "echo gone > keep.txt"} {
		r := s.call("exec", map[string]any{"command": cmd})
		if !strings.Contains(r.Output, why) {
			t.Errorf("%q = %+v, want %q", cmd, r, why)
		}
		r = s.call("exec", map[string]any{"command": cmd, "write": true})
		if !r.IsError || !strings.Contains(r.Output, "--approve none") {
			t.Errorf("%q with write = %+v, want a refusal naming --approve none", cmd, r)
		}
	}
	if r := s.call("exec", map[string]any{"command": "cat keep.txt"}); r.IsError || !strings.Contains(r.Output, "keep") {
		t.Errorf("a read-only command = %+v", r)
	}
	s.close()
	if b, _ := os.ReadFile(keep); string(b) != "keep\n" {
		t.Fatalf("keep.txt = %q", b)
	}

	s = startTools(t, "--root", dir, "--approve", "all")
	r := s.call("exec", map[string]any{"command": "rm keep.txt", "write": true, "reason": "test"})
	if r.IsError || !strings.Contains(r.Output, "deleted  keep.txt") {
		t.Errorf("--approve all = %+v", r)
	}
	s.close()

	var stderr strings.Builder
	if code := run([]string{"tools", "run", "--approve", "some"}, strings.NewReader(""), io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "want all or none") {
		t.Errorf("bad --approve: exit %d, %q", code, stderr.String())
	}
}

// execScript asks to delete keep.txt with write access, then answers
// with what it was told.
func execScript() agenttest.Script {
	return agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "rm keep.txt", "write": true, "reason": "remove the fixture"})),
		agenttest.TextTurn("done"),
	}}
}

func runExecAgent(t *testing.T, args []string, stdin string, terminal bool) (root, stderr, told string) {
	t.Helper()
	srv := agenttest.NewServer(t, execScript())
	root = runEnv(t, srv, "openai")
	// The terminal question is under test, not the sandbox: with it off
	// the command really runs once approved.
	userCfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json")
	os.MkdirAll(filepath.Dir(userCfg), 0o700)
	os.WriteFile(userCfg, []byte(`{"tools":{"execSandbox":false}}`), 0o600)
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("keep\n"), 0o644)
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return terminal }
	t.Cleanup(func() { stdinIsTerminal = old })
	var stdout, errOut strings.Builder
	if code := runAgent(t.Context(), append([]string{"--root", root}, append(args, "clean up")...), strings.NewReader(stdin), &stdout, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	res := srv.Requests()[1].ToolResults()
	return root, errOut.String(), res[len(res)-1].Content
}

func TestRunTerminalApproval(t *testing.T) {
	exists := func(root string) bool { _, err := os.Stat(filepath.Join(root, "keep.txt")); return err == nil }

	root, stderr, told := runExecAgent(t, nil, "y\n", true)
	if exists(root) || !strings.Contains(told, "deleted  keep.txt") {
		t.Errorf("y: keep.txt exists=%v; told %q", exists(root), told)
	}
	for _, want := range []string{"rm keep.txt", "in " + root, "Reason: remove the fixture", `[y/N/a] (a = always allow "rm")`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the terminal question lacks %q:\n%s", want, stderr)
		}
	}

	root, _, told = runExecAgent(t, nil, "\n", true)
	if !exists(root) || !strings.Contains(told, "the user rejected") {
		t.Errorf("Enter (no): keep.txt exists=%v; told %q", exists(root), told)
	}

	root, _, told = runExecAgent(t, nil, "a\n", true)
	if exists(root) || !strings.Contains(told, `always allows "rm"`) {
		t.Errorf("a: told %q", told)
	}
	cfg, err := os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json"))
	if err != nil || !strings.Contains(string(cfg), `"rm"`) {
		t.Errorf("user config after a = %q, %v", cfg, err)
	}

	root, _, told = runExecAgent(t, []string{"--yes"}, "", false)
	if exists(root) || !strings.Contains(told, "[approved by the user]") {
		t.Errorf("--yes: told %q", told)
	}

	root, stderr, told = runExecAgent(t, nil, "y\n", false)
	if !exists(root) || !strings.Contains(told, "no terminal to ask on and --yes was not given") {
		t.Errorf("no terminal: keep.txt exists=%v; told %q", exists(root), told)
	}
	if strings.Contains(stderr, "[y/N") {
		t.Error("asked although there is no terminal")
	}
}
