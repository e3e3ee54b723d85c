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
	// Text is the line to show: "starting gopls… (sandboxed: workspace
	// read-only)", "gopls: indexing (4 s)", or why the server is
	// unavailable.
	Text string
	// Confined, on the starting and restarting statuses, says whether
	// the server runs in the sandbox (confine.go): the workspace
	// read-only to it. Client.Sandbox says why not.
	Confined bool
}

// ErrUnavailable is matched (errors.Is) by the error of every question
// to a server that has been withdrawn.
var ErrUnavailable = errors.New("language server unavailable")

// unavailable is the error of a withdrawn server: its text is for the
// model and the user as it is.
type unavailable struct{ msg string }

func (e *unavailable) Error() string        { return e.msg }
func (e *unavailable) Is(target error) bool { return target == ErrUnavailable }

// withdrawal is the message that names a withdrawn server once, in full.
func withdrawal(name string, exts []string, cause error) error {
	return &unavailable{fmt.Sprintf("the language server %s cannot answer: %v; the language tools are withdrawn for %s files in this session",
		name, cause, strings.Join(exts, " "))}
}

// stillWithdrawn is what later questions hear: short, since the reason
// was given.
func stillWithdrawn(name string, exts []string) error {
	return &unavailable{fmt.Sprintf("the language server %s was withdrawn earlier (its error said why); the language tools do not answer for %s files",
		name, strings.Join(exts, " "))}
}
