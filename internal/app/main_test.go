package app

import (
	"os"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
)

// TestMain lets this test binary be the sandbox helper: the probe of
// the copy-on-write layer starts it, re-executed.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
