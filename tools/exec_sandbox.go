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
}
