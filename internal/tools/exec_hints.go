package tools

import (
	"strings"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/shell"
)

// networkFailures are what resolvers, npm, pip, curl and Go print when
// a connection cannot be made: in the sandbox without the network, the
// model would otherwise chase a misleading error (a missing package, a
// registry outage). Matched case-insensitively.
var networkFailures = []string{
	"enotfound", "eai_again", "enotcached",
	"temporary failure in name resolution", "name or service not known",
	"network is unreachable", "could not resolve host", "failed to establish a new connection",
	"no address associated with hostname", "connect: permission denied",
}

// readOnlyFailures are how a write to a read-only mount is reported
// (tsc's TS5033 carries EROFS, pytest's cache warning the strerror).
var readOnlyFailures = []string{"read-only file system", "erofs"}

// sandboxHints returns the lines (each ending in a newline) that tell the
// model why a confined command failed in a way the sandbox explains: no
// network, or a read-only file system. out is the command's output.
func sandboxHints(out string, res shell.Result, policy sandbox.Policy) string {
	lower := strings.ToLower(out)
	var b strings.Builder
	failed := res.ExitCode != 0 || res.Signal != "" || res.TimedOut
	if !policy.Network && failed && containsAny(lower, networkFailures) {
		b.WriteString("[hint: the sandbox has no network; if the command needs it, run it again with network: true and a reason]\n")
	}
	// A read-only warning matters even when the command succeeded
	// (pytest's cache), so the exit code is not consulted.
	if containsAny(lower, readOnlyFailures) {
		if policy.WriteWorkspace {
			b.WriteString("[hint: outside the workspace only $TMPDIR is writable: put scratch and output files there]\n")
		} else {
			b.WriteString("[hint: the workspace is read-only: put scratch and output files in $TMPDIR (private, writable), or pass write: true if the command must change the workspace]\n")
		}
	}
	return b.String()
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
