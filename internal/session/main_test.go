package session

import (
	"os"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestMain keeps the sessions of the tests in a state directory of
// their own.
func TestMain(m *testing.M) {
	cleanup := testenv.PrivateState()
	code := m.Run()
	cleanup()
	os.Exit(code)
}
