package tools

// sandboxEnv carries the sandbox spec from exec to the helper (this
// binary re-executed); the helper removes it before running the command.
const sandboxEnv = "CB_LS_SANDBOX_SPEC"

// sandboxRule grants Access (Landlock filesystem rights) beneath Path.
type sandboxRule struct {
	Path   string `json:"p"`
	Access uint64 `json:"a"`
}

// sandboxSpec is what the helper needs: the rules, and the command to
// execute once confined.
type sandboxSpec struct {
	Rules []sandboxRule `json:"rules"`
	Argv  []string      `json:"argv"`
	// Hide lists directories the helper covers with an empty read-only
	// tmpfs before confining itself. It is set only when the helper
	// starts in its own user and mount namespaces.
	Hide []string `json:"hide,omitempty"`
	// Split replaces Rules when hiding fails: grants split around the
	// hidden directories instead (see planSandbox).
	Split []sandboxRule `json:"split,omitempty"`
	// ParentMountNS is the server's mount namespace; the helper hides
	// nothing unless its own differs.
	ParentMountNS string `json:"mntns,omitempty"`
}
