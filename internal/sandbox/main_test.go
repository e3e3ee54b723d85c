package sandbox

import (
	"os"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestMain lets this test binary be the sandbox helper: the commands
// the tests confine start as it, re-executed.
func TestMain(m *testing.M) {
	Main()
	cleanup := testenv.PrivateState()
	code := m.Run()
	cleanup()
	os.Exit(code)
}
