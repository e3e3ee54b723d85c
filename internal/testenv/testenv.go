// Package testenv decides what a test does when the machine lacks something
// it needs — an outside program, a kernel feature of the command sandbox,
// root — the way gopls's testenv.NeedsTool does: a contributor's
// `go test ./...` skips the test and says why; CI, which installs every such
// program and runs where the sandbox works, sets CB_LS_REQUIRE_TOOLS=1 so
// that a missing one fails instead of quietly skipping. Every test that
// cannot run somewhere ends through this package, never through a bare
// t.Skip, so that nothing passes in CI by skipping.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the environment variable that turns every skip of this
// package into a failure.
const RequireEnv = "CB_LS_REQUIRE_TOOLS"

// Required reports whether RequireEnv is set: nothing may skip.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// NeedsTool returns the path of the program name, or ends the test when it is
// not on PATH: skipped with the reason, or failed when RequireEnv is "1".
// why says what the program is needed for; install says how to get it.
func NeedsTool(t testing.TB, name, why, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	end(t, name+" is not on PATH ("+why+" needs it)", install)
	return ""
}

// Needs ends the test unless have: the machine lacks what, because of
// missing (what the probe said); install says how to get it. Skipped,
// or failed when RequireEnv is "1".
func Needs(t testing.TB, have bool, what, missing, install string) {
	t.Helper()
	if have {
		return
	}
	end(t, what+": not available here ("+missing+")", install)
}

// SandboxInstall says what the command sandbox needs of the machine.
const SandboxInstall = "a Linux kernel with Landlock enabled (5.13+, landlock in lsm=) and unprivileged user namespaces " +
	"(sysctl kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0); " +
	"a container needs seccomp and AppArmor relaxed enough for unshare(CLONE_NEWUSER)"

// NeedsSandbox ends the test unless have: the command sandbox lacks what
// here (Landlock, user namespaces, the socket filter), as summary, the
// sandbox's own one-line report, says.
func NeedsSandbox(t testing.TB, have bool, what, summary string) {
	t.Helper()
	Needs(t, have, "the command sandbox's "+what, summary, SandboxInstall)
}

// SkipIfShort skips a slow test under -short, and fails it when
// RequireEnv is "1": CI runs everything.
func SkipIfShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		end(t, "-short is set ("+why+")", "run without -short")
	}
}

// end skips t, or fails it when nothing may skip.
func end(t testing.TB, what, install string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s, and %s=1 forbids skipping: %s", what, RequireEnv, install)
	}
	t.Skipf("skipped: %s: %s", what, install)
}
