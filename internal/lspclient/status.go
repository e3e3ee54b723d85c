package lspclient

import (
	"errors"
	"fmt"
	"strings"
)

// State is where a language server is in its life, as the user is told.
type State int

const (
	// StateStarting: the server's process is starting and initializing.
	StateStarting State = iota
	// StateIndexing: a question waits for the server to load its project.
	StateIndexing
	// StateReady: the server answered its initialize, or finished loading.
	StateReady
	// StateRestarting: the server crashed and is started once more.
	StateRestarting
	// StateUnavailable: the server could not start, cannot answer, or
	// crashed twice; the language tools no longer ask it.
	StateUnavailable
)

// Status is one change of a server's state, for a front end's progress.
type Status struct {
	Server string
	State  State
	// Text is the line to show: "starting gopls…", "gopls: indexing
	// (4 s)", or why the server is unavailable.
	Text string
}

// ErrUnavailable is wrapped by the error of every question to a server
// that has been withdrawn.
var ErrUnavailable = errors.New("language server unavailable")

// withdrawal is the message that names a withdrawn server once, in full.
func withdrawal(name string, exts []string, cause error) error {
	return fmt.Errorf("%w: %s: %v; the language tools are withdrawn for %s files in this session",
		ErrUnavailable, name, cause, strings.Join(exts, " "))
}

// stillWithdrawn is what later questions hear: short, since the reason
// was given.
func stillWithdrawn(name string, exts []string) error {
	return fmt.Errorf("%w: %s was withdrawn earlier (see its error above); the language tools do not answer for %s files",
		ErrUnavailable, name, strings.Join(exts, " "))
}
