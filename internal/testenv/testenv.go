// Package testenv decides what a test does when the machine lacks an outside
// program it needs, the way gopls's testenv.NeedsTool does: a contributor's
// `go test ./...` skips the test and says why; CI, which installs every such
// program, sets CB_LS_REQUIRE_TOOLS=1 so that a missing one fails instead of
// quietly skipping.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the environment variable that turns a missing tool from a
// skip into a failure.
const RequireEnv = "CB_LS_REQUIRE_TOOLS"

// NeedsTool returns the path of the program name, or ends the test when it is
// not on PATH: skipped with the reason, or failed when RequireEnv is "1".
// why says what the program is needed for; install says how to get it.
func NeedsTool(t testing.TB, name, why, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s is not on PATH (%s needs it; %s=1): %s", name, why, RequireEnv, install)
	}
	t.Skipf("skipped: %s is not on PATH (%s needs it): %s", name, why, install)
	return ""
}
