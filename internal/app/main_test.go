package app

import (
	"os"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestMain lets this test binary be the sandbox helper: the probe of
// the copy-on-write layer starts it, re-executed.
func TestMain(m *testing.M) {
	sandbox.Main()
	cleanup := testenv.PrivateState()
	code := m.Run()
	cleanup()
	os.Exit(code)
}
