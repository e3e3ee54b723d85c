package sandbox

// Policy says what one exec command may do beyond reading. The
// zero value is the default every command gets without the user's
// approval: the workspace read-only, no network, .git read-only.
//
// Whatever the policy, a confined command always reads and writes its
// own private TMPDIR and build cache, never reads or writes any root's
// .catbuddy/ or the user's catbuddy config, never sees the well-known
// secret files (~/.ssh, ~/.aws, …), never writes the module cache, and
// never outlives the call (see docs/exec-web-mcp.md). The approval flow
// decides the policy; the sandbox only enforces it.
type Policy struct {
	// WriteWorkspace lets the command create, change and delete files in
	// the workspace roots (except .git/ and .catbuddy/).
	WriteWorkspace bool
	// WriteGit also lets it write .git/ (commits, checkouts). Git runs
	// hooks and config from there outside any sandbox, so only a command
	// that names git's own operations should get it. It means nothing
	// without WriteWorkspace.
	WriteGit bool
	// Network gives the command the host's network. Without it the
	// command has a private network with only its own loopback.
	Network bool
}

// Info says how much of a Policy this system enforces.
type Info struct {
	// Landlock is the kernel's Landlock ABI version, 0 without Landlock.
	Landlock int
	// Namespaces reports whether commands get private user, mount,
	// network and PID namespaces (unprivileged user namespaces work).
	Namespaces bool
	// Full is true when every promise of Policy holds. Without it
	// the caller must treat commands as unconfined: ask before any that
	// is not recognised as read-only.
	Full bool
	// Overlay reports whether commands can run over a copy-on-write
	// layer (Request.Overlay); OverlayReason says in one sentence why
	// not, for the user, when it is false.
	Overlay       bool
	OverlayReason string
	// Summary is one line for the result's [sandbox: …] note and for
	// `cb-ls version`: what is on, and precisely what is missing.
	Summary string
}

// String says what the policy allows, for the result's sandbox note.
func (p Policy) String() string {
	var s string
	switch {
	case p.WriteWorkspace && p.WriteGit:
		s = "workspace and .git writable"
	case p.WriteWorkspace:
		s = "workspace writable except .git"
	default:
		s = "workspace read-only"
	}
	if p.Network {
		return s + ", network on"
	}
	return s + ", no network"
}
