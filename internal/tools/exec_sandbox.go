package tools

// SandboxPolicy says what one exec command may do beyond reading. The
// zero value is the default every command gets without the user's
// approval: the workspace read-only, no network, .git read-only.
//
// Whatever the policy, a confined command always reads and writes its
// own private TMPDIR and build cache, never reads or writes any root's
// .catbuddy/ or the user's catbuddy config, never sees the well-known
// secret files (~/.ssh, ~/.aws, …), never writes the module cache, and
// never outlives the call (see docs/exec-web-mcp.md). The approval flow
// decides the policy; the sandbox only enforces it.
type SandboxPolicy struct {
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

// SandboxInfo says how much of a SandboxPolicy this system enforces.
type SandboxInfo struct {
	// Landlock is the kernel's Landlock ABI version, 0 without Landlock.
	Landlock int
	// Namespaces reports whether commands get private user, mount,
	// network and PID namespaces (unprivileged user namespaces work).
	Namespaces bool
	// Full is true when every promise of SandboxPolicy holds. Without it
	// the caller must treat commands as unconfined: ask before any that
	// is not recognised as read-only.
	Full bool
	// Summary is one line for the result's [sandbox: …] note and for
	// `cb-ls version`: what is on, and precisely what is missing.
	Summary string
}

// SandboxInfo reports how commands run with these options: unconfined
// when the user turned the sandbox off, else what the system offers.
func (o ExecOptions) SandboxInfo() SandboxInfo {
	if o.NoSandbox {
		return SandboxInfo{Summary: "off (disabled in configuration)"}
	}
	return Sandbox()
}

// sandboxEnv carries the sandbox spec from exec to the helper (this
// binary re-executed); the helper removes it before running the command.
const sandboxEnv = "CB_LS_SANDBOX_SPEC"

// sandboxRule grants Access (Landlock filesystem rights) beneath Path.
type sandboxRule struct {
	Path   string `json:"p"`
	Access uint64 `json:"a"`
}

// sandboxSpec is what the helper needs: the rules, the mounts to make in
// its private mount namespace, and the command to execute once confined.
type sandboxSpec struct {
	Rules []sandboxRule `json:"rules"`
	Argv  []string      `json:"argv"`
	// Dir is the command's working directory, entered again after the
	// mounts: the directory inherited from the server lies in the
	// host's mounts, where nothing is hidden or read-only.
	Dir string `json:"dir"`
	// Mounts is set only when the helper starts in its own user, mount,
	// network and PID namespaces; see nsMounts.
	Mounts *nsMounts `json:"mounts,omitempty"`
	// DenyTCP asks Landlock (ABI 4+) to refuse TCP connect and bind: the
	// network fence where there is no private network namespace.
	DenyTCP bool `json:"denyTCP,omitempty"`
	// DenyUnix makes socket(AF_UNIX, …) fail (a seccomp filter): without
	// the network policy no path-named socket can be reached, docker's
	// and the user's agents' included.
	DenyUnix bool `json:"noUnix,omitempty"`
}

// nsMounts are the mounts the helper makes in its private mount
// namespace before it confines itself.
type nsMounts struct {
	// ParentNS is the server's mount namespace: the helper mounts nothing
	// unless its own differs, so it can never change the host's mounts.
	ParentNS string `json:"parent"`
	// Private directories get an empty writable tmpfs of the command's
	// own (/tmp, /dev/shm): other programs' files and sockets vanish.
	Private []string `json:"private,omitempty"`
	// Hide directories get an empty read-only tmpfs (.catbuddy/, ~/.ssh,
	// /run with its sockets).
	Hide []string `json:"hide,omitempty"`
	// HideFiles are covered with /dev/null (~/.netrc).
	HideFiles []string `json:"hideFiles,omitempty"`
	// Keep are paths under a Private or Hide directory bound back into
	// it: the workspace under /tmp, the command's own TMPDIR.
	Keep []nsKeep `json:"keep,omitempty"`
	// ReadOnly are bound read-only over themselves (the workspace, .git).
	ReadOnly []string `json:"readOnly,omitempty"`
	// Loopback brings up the private network namespace's lo.
	Loopback bool `json:"lo,omitempty"`
	// GoCache, when set, lays the user's Go build cache under the
	// command's GOCACHE as the lower layer of an overlay.
	GoCache *nsOverlay `json:"gocache,omitempty"`
}

// nsOverlay is a copy-on-write view of Lower at Target: the command
// reads the user's warm cache and writes into Upper, its own, which is
// discarded with its TMPDIR. What it writes never reaches Lower, so the
// user's own builds never run it.
type nsOverlay struct {
	Lower  string `json:"lower"`
	Target string `json:"target"`
	// Scratch is an empty directory in the command's TMPDIR. The helper
	// mounts a tmpfs there and makes Upper and Work (beneath Scratch)
	// in it: on a disk filesystem the overlay's work directory and its
	// removal after the call cost more than the rest of the call.
	Scratch     string `json:"scratch"`
	Upper, Work string
}

// nsKeep is one path bound back under a hidden directory.
type nsKeep struct {
	Path     string `json:"p"`
	Writable bool   `json:"w,omitempty"`
}

// String says what the policy allows, for the result's sandbox note.
func (p SandboxPolicy) String() string {
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
