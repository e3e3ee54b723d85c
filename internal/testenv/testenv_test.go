package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// scenarioEnv names the scenario TestSkipOrFail plays when this test
// binary is started again by it.
const scenarioEnv = "CB_LS_TESTENV_SCENARIO"

// scenarios each end a test through this package for want of something.
var scenarios = map[string]func(t *testing.T){
	"tool": func(t *testing.T) {
		NeedsTool(t, "cb-ls-no-such-tool", "the scenario", "apt-get install nothing")
		t.Log("REACHED: NeedsTool returned")
	},
	"capability": func(t *testing.T) {
		Needs(t, false, "a capability", "the probe said no", "get one")
		t.Log("REACHED: Needs returned")
	},
	"sandbox": func(t *testing.T) {
		NeedsSandbox(t, false, "user namespaces", "partial: Landlock ABI 7 without namespaces")
		t.Log("REACHED: NeedsSandbox returned")
	},
	"short": func(t *testing.T) {
		SkipIfShort(t, "slow")
		t.Log("REACHED: SkipIfShort returned")
	},
	"present": func(t *testing.T) {
		if p := NeedsTool(t, "sh", "the scenario", "apt-get install dash"); p == "" {
			t.Error("NeedsTool found no path for sh")
		}
		Needs(t, true, "a capability", "", "")
		NeedsSandbox(t, true, "Landlock", "")
		SkipIfShort(t, "slow")
		t.Log("REACHED: all present")
	},
}

// TestSkipOrFail runs each scenario in a fresh test binary, as go test
// would, with and without CB_LS_REQUIRE_TOOLS=1 (and -short): what is
// missing skips the test and says why, or fails it when nothing may
// skip; what is present lets it go on.
func TestSkipOrFail(t *testing.T) {
	if name := os.Getenv(scenarioEnv); name != "" {
		scenarios[name](t)
		return
	}
	cases := []struct {
		scenario string
		require  bool
		short    bool
		// want is the test's verdict line; says what its message holds.
		want, says string
	}{
		{"tool", false, false, "--- SKIP", "skipped: cb-ls-no-such-tool is not on PATH (the scenario needs it): apt-get install nothing"},
		{"tool", true, false, "--- FAIL", "cb-ls-no-such-tool is not on PATH (the scenario needs it), and CB_LS_REQUIRE_TOOLS=1 forbids skipping: apt-get install nothing"},
		{"capability", false, false, "--- SKIP", "skipped: a capability: not available here (the probe said no): get one"},
		{"capability", true, false, "--- FAIL", "a capability: not available here (the probe said no), and CB_LS_REQUIRE_TOOLS=1 forbids skipping"},
		{"sandbox", false, false, "--- SKIP", "skipped: the command sandbox's user namespaces: not available here (partial: Landlock ABI 7 without namespaces): a Linux kernel with Landlock"},
		{"sandbox", true, false, "--- FAIL", "CB_LS_REQUIRE_TOOLS=1 forbids skipping: a Linux kernel with Landlock"},
		{"short", false, true, "--- SKIP", "skipped: -short is set (slow): run without -short"},
		{"short", true, true, "--- FAIL", "-short is set (slow), and CB_LS_REQUIRE_TOOLS=1 forbids skipping"},
		{"short", true, false, "--- PASS", "REACHED: SkipIfShort returned"},
		{"present", true, true, "--- FAIL", "-short is set"},
		{"present", true, false, "--- PASS", "REACHED: all present"},
		{"present", false, false, "--- PASS", "REACHED: all present"},
	}
	for _, c := range cases {
		args := []string{"-test.run=^TestSkipOrFail$", "-test.v", "-test.count=1"}
		if c.short {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		require := ""
		if c.require {
			require = "1"
		}
		cmd.Env = append(os.Environ(), scenarioEnv+"="+c.scenario, RequireEnv+"="+require)
		b, _ := cmd.CombinedOutput()
		out := string(b)
		if !strings.Contains(out, c.want+": TestSkipOrFail") || !strings.Contains(out, c.says) {
			t.Errorf("%s (require %v, short %v): want %q saying %q, got:\n%s", c.scenario, c.require, c.short, c.want, c.says, out)
		}
		if c.want != "--- PASS" && strings.Contains(out, "REACHED") {
			t.Errorf("%s (require %v, short %v): the test went on after it ended:\n%s", c.scenario, c.require, c.short, out)
		}
	}
}
