package main

import (
	"os"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// asMainEnv makes the test binary run as cb-ls itself (for tests that
// need a process of its own: a signal, a kill -9).
const asMainEnv = "CB_LS_TEST_AS_MAIN"

// TestMain lets this test binary be the sandbox helper: the commands
// its tests run through the exec tool start as it, re-executed. With
// asMainEnv set it is cb-ls.
func TestMain(m *testing.M) {
	sandbox.Main()
	if os.Getenv(asMainEnv) == "1" {
		applyUserLimits()
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	cleanup := testenv.PrivateState()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// sessionsOf is where the sessions of the folder root are kept: in the
// test binary's own state directory (testenv.PrivateState).
func sessionsOf(t *testing.T, root string) string {
	t.Helper()
	dir, err := session.DirOf(root)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
