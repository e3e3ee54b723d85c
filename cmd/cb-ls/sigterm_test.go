package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// TestChangesOfAHugeFileBoundedAndStoppedBySIGTERM: a command made a
// 2 GB sparse file in the layer. cb-ls changes lists it as one whole
// item without reading it (its peak memory stays far below the file),
// and a keep of it, which streams it, stops at a SIGTERM: the process
// ends at once and the user's folder holds no half of the file.
func TestChangesOfAHugeFileBoundedAndStoppedBySIGTERM(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "truncate -s 2G big.bin", "write": true})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return false }
	t.Cleanup(func() { stdinIsTerminal = old })
	var stdout, errOut strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "make it"}, strings.NewReader(""), &stdout, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	// The command ran over the layer and left nothing in the project,
	// not even the .catbuddy/ the sandbox hides.
	if got := names(root); len(got) != 1 || got[0] != "calc.go" {
		t.Errorf("after a command the project holds %q, want only calc.go", got)
	}
	cbls := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), asMainEnv+"=1")
		return cmd
	}
	list := cbls("changes", "--root", root)
	var out bytes.Buffer
	list.Stdout, list.Stderr = &out, &out
	if err := list.Run(); err != nil {
		t.Fatalf("cb-ls changes: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "big.bin") || !strings.Contains(out.String(), "whole file") {
		t.Errorf("the listing does not show big.bin as a whole file:\n%s", out.String())
	}
	if rss := list.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > 200<<10 {
		t.Errorf("cb-ls changes peaked at %d MB listing a 2 GB file", rss>>10)
	}

	keep := cbls("changes", "--root", root, "--keep")
	var keepOut bytes.Buffer
	keep.Stdout, keep.Stderr = &keepOut, &keepOut
	if err := keep.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the keep is writing the file, then stop it.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !writing(root) {
		time.Sleep(5 * time.Millisecond)
	}
	stopped := time.Now()
	if err := keep.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- keep.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = keep.Process.Kill()
		t.Fatal("cb-ls changes --keep did not stop within 10 s of a SIGTERM")
	}
	t.Logf("stopped %v after the SIGTERM, with %q in the folder\n%s", time.Since(stopped).Round(time.Millisecond), names(root), keepOut.String())
	if fi, err := os.Stat(filepath.Join(root, "big.bin")); err == nil && fi.Size() != 2<<30 {
		t.Errorf("half a file was left in the folder: %d bytes", fi.Size())
	}
}

// writing reports whether a keep has begun to write into root: a file
// other than the fixture's appeared.
func writing(root string) bool {
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if e.Name() != "calc.go" {
			return true
		}
	}
	return false
}

func names(root string) []string {
	var out []string
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestMaxDiffMBFromTheUsersConfig: a 2 MB text file a command made is
// diffed by default and one whole-file item once the user's config.json
// says maxDiffMB 1; a project's config.json cannot say so.
func TestMaxDiffMBFromTheUsersConfig(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "for i in $(seq 40000); do echo line $i of a long generated text file, made by the command; done > gen.txt", "write": true})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return false }
	t.Cleanup(func() { stdinIsTerminal = old })
	var stdout, errOut strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "make it"}, strings.NewReader(""), &stdout, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	list := func() string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "changes", "--root", root)
		cmd.Env = append(os.Environ(), asMainEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cb-ls changes: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := list(); strings.Contains(out, "whole file") || !strings.Contains(out, "+line 1 of a long") {
		t.Fatalf("by default a 2 MB text file is diffed:\n%.600s", out)
	}
	if err := os.MkdirAll(filepath.Join(root, ".catbuddy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".catbuddy", "config.json"), []byte(`{"maxDiffMB": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := list(); strings.Contains(out, "whole file") {
		t.Fatalf("a project's maxDiffMB applied:\n%.600s", out)
	}
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy")
	if err := os.MkdirAll(user, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "config.json"), []byte(`{"maxDiffMB": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := list(); !strings.Contains(out, "gen.txt") || !strings.Contains(out, "whole file") {
		t.Errorf("with the user's maxDiffMB 1 the file is not one whole-file item:\n%.600s", out)
	}
}
