package sandbox

// specEnv carries the sandbox spec from exec to the helper (this
// binary re-executed); the helper removes it before running the command.
const specEnv = "CB_LS_SANDBOX_SPEC"

// rule grants Access (Landlock filesystem rights) beneath Path.
type rule struct {
	Path   string `json:"p"`
	Access uint64 `json:"a"`
}

// helperSpec is what the helper needs: the rules, the mounts to make in
// its private mount namespace, and the command to execute once confined.
type helperSpec struct {
	Rules []rule   `json:"rules"`
	Argv  []string `json:"argv"`
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
	// ModCache, when set, lays the module cache under itself as the
	// lower layer of an overlay (Request.Server): what a server
	// downloads stays its own. Where the overlay cannot be mounted the
	// module cache is made read-only instead.
	ModCache *nsOverlay `json:"modcache,omitempty"`
	// Layers are the workspace folders' copy-on-write layers
	// (Request.Overlay), each mounted over its Lower before anything
	// beneath it is hidden or made read-only.
	Layers []OverlayLayer `json:"layers,omitempty"`
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
