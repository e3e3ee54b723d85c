package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

func execToolContext(t testing.TB, opts ExecOptions) (*ToolContext, string) {
	t.Helper()
	root := t.TempDir()
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	// These tests are about running, not asking: every question is
	// approved (exec_approval_test.go covers the questions).
	return &ToolContext{Guard: g, Options: Options{Exec: opts}, Approver: ApproveAll}, g.WorkRoot()
}

func execContext(t testing.TB, opts ExecOptions) (*Registry, string) {
	t.Helper()
	tc, _ := execToolContext(t, opts)
	g := tc.Guard
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
	r, _ := execContext(t, ExecOptions{DrainWait: 200 * time.Millisecond})
	marker := uniqueMarker()
	start := time.Now()
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": "sh -c 'sleep 30' " + marker + " & echo started"})
	if !strings.Contains(res.Output, "started") || strings.Contains(res.Output, "timed out") {
		t.Fatalf("output = %q", res.Output)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a background job held the call for %s", d)
	}
	waitNoSurvivors(t, marker)
}

// TestExecSetsidDaemonDies: a daemon that left the process group (and
// the session) still dies with the call, where the sandbox gives
// commands a PID namespace.
func TestExecSetsidDaemonDies(t *testing.T) {
	// Without one a setsid daemon can outlive the call.
	testenv.NeedsSandbox(t, sandbox.Probe().Namespaces, "PID namespace", sandbox.Probe().Summary)
	r, _ := execContext(t, ExecOptions{DrainWait: 200 * time.Millisecond})
	marker := uniqueMarker()
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": "setsid sh -c 'while :; do sleep 0.05; done' " + marker + " </dev/null >/dev/null 2>&1 & echo started"})
	if !strings.Contains(res.Output, "started") {
		t.Fatalf("output = %q", res.Output)
	}
	waitNoSurvivors(t, marker)
}

func TestExecTimeoutKillsGroupIncludingTermIgnorer(t *testing.T) {
	r, _ := execContext(t, ExecOptions{Timeout: 500 * time.Millisecond, DrainWait: 300 * time.Millisecond})
	marker := uniqueMarker()
	// Both the shell and its child ignore SIGTERM; only SIGKILL ends them.
	cmd := `trap '' TERM; sh -c 'trap "" TERM; while :; do sleep 0.05; done' ` + marker + ` & while :; do sleep 0.05; done`
	res, err := runExecTool(t, t.Context(), r, map[string]any{"command": cmd})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Output, "timed out after 500ms") {
		t.Fatalf("output = %q, want a timeout", res.Output)
	}
	waitNoSurvivors(t, marker)
}

func TestExecCancelKillsGroup(t *testing.T) {
	tc, root := execToolContext(t, ExecOptions{DrainWait: 200 * time.Millisecond})
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
	marker := uniqueMarker()
	// The command writes its marker file into the workspace, so it runs
	// with write access.
	res, err := runConfined(ctx, tc, hostShell(), "sh -c 'echo $$ > c.pid.tmp && mv c.pid.tmp c.pid; sleep 30' "+marker, root, time.Minute, sandbox.Policy{WriteWorkspace: true})
	if err == nil {
		t.Errorf("Execute returned no error after cancellation: %+v", res)
	}
	if !strings.Contains(res.Output, "cancelled") {
		t.Errorf("output = %q, want cancelled", res.Output)
	}
	waitNoSurvivors(t, marker)
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

// uniqueMarker is an argument to put on a test command's processes, so
// they can be found from outside the command's PID namespace.
func uniqueMarker() string {
	return fmt.Sprintf("cb-ls-test-marker-%d-%d", os.Getpid(), time.Now().UnixNano())
}

// waitNoSurvivors waits until no process whose command line holds
// marker runs (zombies waiting for a reaper that is not us count as
// gone), and fails after 10 s.
func waitNoSurvivors(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive := survivors(marker)
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes %v still run after the exec call returned", alive)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dyingLoop is the script of TestExecDiesWithServer's loops.
const dyingLoop = "while :; do sleep 0.05; done"

// loops returns the processes running sh -c dyingLoop marker.
func loops(marker string) []int {
	var out []int
	for _, pid := range survivors(marker) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if args := strings.Split(string(cmdline), "\x00"); len(args) >= 4 && args[1] == "-c" && args[2] == dyingLoop && args[3] == marker {
			out = append(out, pid)
		}
	}
	return out
}

func survivors(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// TestExecDiesWithServer: when cb-ls itself dies mid-command, nothing
// the command started lives on (no daemon keeps writing to the
// workspace after the server is gone).
func TestExecDiesWithServer(t *testing.T) {
	if marker := os.Getenv("CB_LS_TEST_SERVER_DEATH"); marker != "" {
		// The "server": start a command that would run forever, then die
		// without cleaning up, once both of its loops run: the one in
		// the shell's process group and the setsid one that left it.
		// (Counting every process that names the marker would count the
		// shell itself and its forks before they exec, and the server
		// could die before the setsid loop existed, leaving it untested.)
		tc, root := execToolContext(t, ExecOptions{})
		done := make(chan Result, 1)
		go func() {
			res, _ := runConfined(context.Background(), tc, hostShell(), "sh -c '"+dyingLoop+"' "+marker+" & setsid sh -c '"+dyingLoop+"' "+marker+" & wait", root, time.Hour, sandbox.Policy{})
			done <- res
		}()
		for len(loops(marker)) < 2 {
			select {
			case res := <-done:
				// Not a hang of the parent until its timeout: the command
				// ended, and says why.
				fmt.Fprintf(os.Stderr, "the command ended before its loops ran:\n%s\n", res.Output)
				os.Exit(3)
			case <-time.After(10 * time.Millisecond):
			}
		}
		// Only a PID namespace of the command's own ends the setsid
		// loop with the server: a command the sandbox ran without one
		// (its probe or mounts failed here) is that failure, named.
		self, _ := os.Readlink("/proc/self/ns/pid")
		for _, pid := range loops(marker) {
			if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid)); err == nil && ns == self {
				fmt.Fprintf(os.Stderr, "the command ran in the server's PID namespace; the sandbox: %s\n", sandbox.Probe().Summary)
				os.Exit(4)
			}
		}
		os.Exit(0)
	}
	// Without one a command can outlive the server.
	testenv.NeedsSandbox(t, sandbox.Probe().Namespaces, "PID namespace", sandbox.Probe().Summary)
	marker := uniqueMarker()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestExecDiesWithServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CB_LS_TEST_SERVER_DEATH="+marker)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the server process: %v\n%s", err, out)
	}
	waitNoSurvivors(t, marker)
}

// TestExecSandboxNoteOncePerRun: a run's first command result describes
// the sandbox in full; a later one says in short what the command may
// do only the first time a command may do just that, and else nothing;
// a new run gets the full description again.
func TestExecSandboxNoteOncePerRun(t *testing.T) {
	r, _ := execContext(t, ExecOptions{})
	info := ExecOptions{}.SandboxInfo()
	full := "[sandbox: " + info.Summary + "]"
	switch {
	case info.Full:
		// Every promise kept: the note says what the command may do,
		// not how the kernel keeps it.
		full = "[sandbox: on: workspace read-only, no network]"
	case info.Landlock > 0:
		full = "[sandbox: on, " + info.Summary + ": workspace read-only, no network]"
	}
	run := filestate.NewContext(t.Context(), filestate.New())
	steps := []struct {
		write bool
		want  string // the note, "" for none
	}{{false, full}, {false, ""}, {true, "[sandbox: on: workspace writable except .git, no network]"}, {true, ""}, {false, ""}}
	if info.Landlock == 0 {
		steps[2].want = "" // off is off, whatever the command may do
	}
	for i, st := range steps {
		res, err := runExecTool(t, run, r, map[string]any{"command": "true", "write": st.write, "reason": "test"})
		got := ""
		if at := strings.Index(res.Output, "[sandbox:"); at >= 0 {
			got = res.Output[at:]
			got = got[:strings.Index(got, "]")+1]
		}
		if err != nil || got != st.want {
			t.Errorf("command %d of the run: %q (%v), want the note %q", i+1, res.Output, err, st.want)
		}
	}
	next := filestate.NewContext(t.Context(), filestate.New())
	if res, _ := runExecTool(t, next, r, map[string]any{"command": "true"}); !strings.HasSuffix(res.Output, full) {
		t.Errorf("a new run's first command: %q, want the full note %q", res.Output, full)
	}
}
