package sandbox

// Request is one command to run confined.
type Request struct {
	// Roots are the workspace folders. WorkRoot is the folder commands
	// run in; in internal mode it lies inside a root's .catbuddy/.
	Roots    []string
	WorkRoot string
	// Dir is the command's working directory.
	Dir string
	// Argv is the command, Argv[0] an absolute path.
	Argv   []string
	Policy Policy
	// WritableDirs are extra directories the command may write besides
	// its private TMPDIR and build cache (and the workspace when Policy
	// says so).
	WritableDirs []string
	// UserDirs are cb-ls's own directories outside the workspace (the
	// user's catbuddy config and state): no command reads, writes or
	// creates them, exactly like each root's .catbuddy/.
	UserDirs []string
	// Environ returns the command's environment (KEY=VALUE entries) with
	// set, the sandbox's own variables (TMPDIR, GOCACHE, the helper's
	// spec), on top of whatever it lets the command inherit.
	Environ func(set map[string]string) []string
}
