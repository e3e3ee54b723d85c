package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/guard"
)

func execContext(t testing.TB, opts ExecOptions) (*Registry, string) {
	t.Helper()
	root := t.TempDir()
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	tc := &ToolContext{Guard: g, Options: Options{Exec: opts}}
	r := NewRegistry()
	if err := r.Register(Exec(tc)); err != nil {
		t.Fatal(err)
	}
	return r, g.WorkRoot()
}

func runExecTool(t *testing.T, ctx context.Context, r *Registry, args map[string]any) (Result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	return r.Execute(ctx, "exec", raw)
}

func TestExecBasics(t *testing.T) {
	r, root := execContext(t, ExecOptions{})
	os.Mkdir(filepath.Join(root, "sub"), 0o755)

	res, err := runExecTool(t, t.Context(), r, map[string]any{"command": "echo hello; echo oops >&2; exit 3"})
	if err != nil || res.IsError {
		t.Fatalf("exec = %+v, %v", res, err)
	}
	for _, want := range []string{"hello\n", "oops\n", "[exit code 3]", "[sandbox: "} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output %q lacks %q", res.Output, want)
		}
	}

	res, _ = runExecTool(t, t.Context(), r, map[string]any{"command": "pwd", "cwd": "sub"})
	if !strings.Contains(res.Output, filepath.Join(root, "sub")+"\n") {
		t.Errorf("pwd in sub = %q", res.Output)
	}

	res, _ = runExecTool(t, t.Context(), r, map[string]any{"command": "pwd", "cwd": "/"})
	if !res.IsError || !strings.Contains(res.Output, "outside the workspace") {
		t.Errorf("cwd / = %+v, want a PathGuard refusal", res)
	}

	res, _ = runExecTool(t, t.Context(), r, map[string]any{"command": "sh -c 'rm -rf /'"})
	if !res.IsError || !strings.Contains(res.Output, "command refused") {
		t.Errorf("rm -rf / = %+v, want a guard refusal", res)
	}

	// stdin is /dev/null: cat ends at once instead of waiting.
	res, _ = runExecTool(t, t.Context(), r, map[string]any{"command": "cat; echo after", "timeout": 5})
	if !strings.Contains(res.Output, "after") || strings.Contains(res.Output, "timed out") {
		t.Errorf("cat with closed stdin = %q", res.Output)
	}
}

func TestExecBackgroundJobDoesNotHang(t *testing.T) {
	r, root := execContext(t, ExecOptions{KillGrace: 200 * time.Millisecond})
	start := time.Now()
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": "sleep 30 & echo $! > bg.pid; echo started"})
	if !strings.Contains(res.Output, "started") || strings.Contains(res.Output, "timed out") {
		t.Fatalf("output = %q", res.Output)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a background job held the call for %s", d)
	}
	waitDead(t, readPid(t, filepath.Join(root, "bg.pid")))
}

func TestExecTimeoutKillsGroupIncludingTermIgnorer(t *testing.T) {
	r, root := execContext(t, ExecOptions{Timeout: 500 * time.Millisecond, KillGrace: 300 * time.Millisecond})
	// Both the shell and its child ignore SIGTERM; only SIGKILL ends them.
	cmd := `trap '' TERM; sh -c 'trap "" TERM; echo $$ > child.pid; while :; do sleep 0.05; done' & while :; do sleep 0.05; done`
	res, err := runExecTool(t, t.Context(), r, map[string]any{"command": cmd})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Output, "timed out after 500ms") {
		t.Fatalf("output = %q, want a timeout", res.Output)
	}
	waitDead(t, readPid(t, filepath.Join(root, "child.pid")))
}

func TestExecCancelKillsGroup(t *testing.T) {
	r, root := execContext(t, ExecOptions{KillGrace: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pidFile := filepath.Join(root, "c.pid")
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res, err := runExecTool(t, ctx, r, map[string]any{"command": "sh -c 'echo $$ > c.pid.tmp && mv c.pid.tmp c.pid; sleep 30'"})
	if err == nil {
		t.Errorf("Execute returned no error after cancellation: %+v", res)
	}
	if !strings.Contains(res.Output, "cancelled") {
		t.Errorf("output = %q, want cancelled", res.Output)
	}
	waitDead(t, readPid(t, pidFile))
}

func TestExecOutputCap(t *testing.T) {
	r, _ := execContext(t, ExecOptions{MaxOutput: 1000})
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": "seq 1 100000"})
	if len(res.Output) > 1400 {
		t.Errorf("output is %d bytes, want about 1000", len(res.Output))
	}
	for _, want := range []string{"1\n2\n3\n", "99999\n100000\n", "bytes of output elided", "[exit code 0]"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("capped output lacks %q:\n%s", want, res.Output)
		}
	}
}

func TestExecRemovesSecretsFromEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant")
	t.Setenv("GITHUB_TOKEN", "ghp-token")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
	t.Setenv("MY_SERVICE_SECRET", "svc-secret")
	t.Setenv("DB_PASSWORD", "hunter2")
	t.Setenv("pgpassword_file", "lower-pass")
	t.Setenv("CB_LS_TEST_KEEP", "kept-value")
	r, _ := execContext(t, ExecOptions{})
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": "env"})
	for _, secret := range []string{"sk-openai", "sk-ant", "ghp-token", "aws-secret", "svc-secret", "hunter2", "lower-pass", sandboxEnv} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("env output contains %q", secret)
		}
	}
	if !strings.Contains(res.Output, "CB_LS_TEST_KEEP=kept-value") {
		t.Errorf("env output lacks the ordinary variable:\n%s", res.Output)
	}
}

func TestHeadTail(t *testing.T) {
	h := newHeadTail(100)
	for i := range 1000 {
		fmt.Fprintf(h, "%04d\n", i)
	}
	s := h.String()
	if !strings.HasPrefix(s, "0000\n0001\n") || !strings.HasSuffix(s, "0998\n0999\n") {
		t.Errorf("head/tail lost: %q", s)
	}
	if !strings.Contains(s, "[4900 bytes of output elided]") {
		t.Errorf("elision count wrong: %q", s)
	}
	small := newHeadTail(100)
	small.Write([]byte("short"))
	if small.String() != "short" {
		t.Errorf("short output altered: %q", small.String())
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// waitDead waits until pid no longer runs (gone, or a zombie waiting for
// a reaper that is not us).
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still runs after the exec call returned", pid)
}
