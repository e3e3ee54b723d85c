package lsp_test

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// buildBinary builds cmd/cb-ls once per test binary.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cb-ls")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/catbuddy/cb-ls/cmd/cb-ls").CombinedOutput()
	if err != nil {
		t.Fatalf("build cb-ls: %v\n%s", err, out)
	}
	return bin
}

func lspFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestExitCodes runs the real binary: shutdown then exit is 0, exit alone
// is 1, and stdout carries nothing but protocol frames.
func TestExitCodes(t *testing.T) {
	testenv.SkipIfShort(t, "builds the binary")
	bin := buildBinary(t)
	init := lspFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`)
	shutdown := lspFrame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	exit := lspFrame(`{"jsonrpc":"2.0","method":"exit"}`)
	for _, tc := range []struct {
		name  string
		input string
		code  int
	}{
		{"shutdown then exit", init + shutdown + exit, 0},
		{"exit without shutdown", init + exit, 1},
		{"eof without exit", init, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "serve", "--stdio")
			cmd.Stdin = strings.NewReader(tc.input)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := runWithTimeout(cmd, 20*time.Second)
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("run: %v", err)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, tc.code, stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), "Content-Length: ") || !strings.Contains(stdout.String(), `"id":1`) {
				t.Errorf("stdout is not protocol frames: %q", stdout.String())
			}
		})
	}
}

// TestExitWhenEditorDies: the server exits when the processId it was
// given is gone.
func TestExitWhenEditorDies(t *testing.T) {
	testenv.SkipIfShort(t, "builds the binary")
	bin := buildBinary(t)
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		testenv.Needs(t, false, "a stand-in editor process (sleep)", err.Error(), "apt-get install coreutils")
	}
	pid := editor.Process.Pid
	cmd := exec.Command(bin, "serve")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	init := lspFrame(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":%d,"rootUri":null,"capabilities":{}}}`, pid))
	if _, err := io.WriteString(stdin, init); err != nil {
		t.Fatal(err)
	}
	_ = editor.Process.Kill()
	_ = editor.Wait()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("server still running 20s after its editor died\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "editor process is gone") {
		t.Errorf("stderr does not say why it exited:\n%s", stderr.String())
	}
}

func runWithTimeout(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not exit within %v", cmd.Path, d)
	}
}
