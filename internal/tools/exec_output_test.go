package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestExecStripsColours: escape codes never reach the model, and
// commands are asked for plain output.
func TestExecStripsColours(t *testing.T) {
	r, _ := execContext(t, ExecOptions{})
	res, err := runExecTool(t, t.Context(), r, map[string]any{"command": `printf '\033[1;31mFAILED\033[0m test_x\n\033]0;title\007'; echo "NO_COLOR=$NO_COLOR"`})
	if err != nil || res.IsError {
		t.Fatalf("exec = %+v, %v", res, err)
	}
	if strings.Contains(res.Output, "\x1b") || !strings.HasPrefix(withoutSandboxNotes(res.Output), "FAILED test_x\nNO_COLOR=1\n") {
		t.Errorf("output = %q", res.Output)
	}
}

// confinedOrSkip returns a tool context whose commands run in the
// sandbox; the hints are about the sandbox.
func confinedOrSkip(t *testing.T) (*ToolContext, string) {
	t.Helper()
	testenv.NeedsSandbox(t, sandbox.Probe().Full, "full confinement", sandbox.Probe().Summary)
	return execToolContext(t, ExecOptions{})
}

func TestExecOfflineSettingsAndNetworkHint(t *testing.T) {
	tc, root := confinedOrSkip(t)
	res, _ := runConfined(t.Context(), tc, hostShell(), "env", root, time.Minute, sandbox.Policy{})
	for _, want := range []string{"npm_config_offline=true", "PIP_RETRIES=0", "NO_COLOR=1"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("offline env lacks %s:\n%s", want, res.Output)
		}
	}
	res, _ = runConfined(t.Context(), tc, hostShell(), "env", root, time.Minute, sandbox.Policy{Network: true})
	if strings.Contains(res.Output, "npm_config_offline") || !strings.Contains(res.Output, "NO_COLOR=1") {
		t.Errorf("with the network, env = %s", res.Output)
	}

	// A real resolver failure inside the sandbox: node looks a name up.
	testenv.NeedsTool(t, "node", "a real lookup failing without the network", "apt-get install nodejs")
	const hint = "the sandbox has no network; if the command needs it, run it again with network: true"
	res, _ = runConfined(t.Context(), tc, hostShell(), `node -e "require('dns').lookup('registry.npmjs.org', e => { console.error(String(e)); process.exit(e ? 1 : 0) })"`, root, time.Minute, sandbox.Policy{})
	if !strings.Contains(res.Output, hint) {
		t.Errorf("no network hint after a failed lookup:\n%s", res.Output)
	}
	// The same text with success, or with the network on, gets no hint.
	for _, p := range []sandbox.Policy{{}, {Network: true}} {
		cmd := "echo 'getaddrinfo ENOTFOUND registry.npmjs.org'"
		if p.Network {
			cmd += "; exit 1"
		}
		res, _ = runConfined(t.Context(), tc, hostShell(), cmd, root, time.Minute, p)
		if strings.Contains(res.Output, hint) {
			t.Errorf("%q with %v got the hint:\n%s", cmd, p, res.Output)
		}
	}
}

func TestExecReadOnlyHint(t *testing.T) {
	tc, root := confinedOrSkip(t)
	res, _ := runConfined(t.Context(), tc, hostShell(), "touch out.cov", root, time.Minute, sandbox.Policy{})
	if !strings.Contains(res.Output, "Read-only file system") || !strings.Contains(res.Output, "[hint: the workspace is read-only: put scratch and output files in $TMPDIR (private, writable), or pass write: true") {
		t.Errorf("no read-only hint:\n%s", res.Output)
	}
	// Where $TMPDIR points, the same command works and gets no hint.
	res, _ = runConfined(t.Context(), tc, hostShell(), `touch "$TMPDIR/out.cov" && echo ok`, root, time.Minute, sandbox.Policy{})
	if strings.Contains(res.Output, "hint") || !strings.Contains(res.Output, "ok\n[exit code 0]") {
		t.Errorf("TMPDIR write: %s", res.Output)
	}
}

// withoutSandboxNotes drops the lines the sandbox's helper writes about
// its own set-up ("cb-ls sandbox: the Go build cache starts cold …",
// where the machine's cache is out of the sandbox's sight), so that a
// test can look at what the command itself printed first.
func withoutSandboxNotes(out string) string {
	for strings.HasPrefix(out, "cb-ls sandbox: ") {
		_, out, _ = strings.Cut(out, "\n")
	}
	return out
}
