package sandbox

import (
	"os"
	"testing"
)

// TestMain lets this test binary be the sandbox helper: the commands
// the tests confine start as it, re-executed.
func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}
