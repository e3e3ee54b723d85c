package changeset

import (
	"os"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
)

// TestMain lets this test binary be the sandbox helper: the commands
// the exec tests run over the layer start as it, re-executed.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
