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
	// Server, when set, starts a long-lived program that serves cb-ls (a
	// language server) rather than a command of the agent's: with Policy
	// as for a command, but its TMPDIR is named cb-ls-server-*, its
	// caches (XDG_CACHE_HOME, GOCACHE, npm_config_cache) persist in a
	// directory of the servers' own that commands cannot write
	// (~/.cache/catbuddy-servers), and with namespaces the module cache
	// is a copy-on-write view: a server that downloads a module (gopls
	// with -mod=mod) gets it for its life, and the user's module cache,
	// which the user's next build runs, never changes.
	Server bool
	// Overlay, when set, runs the command over a copy-on-write layer of
	// each workspace folder (Linux overlayfs in the helper's private
	// mount namespace, see layer_linux.go): it sees the folders as they
	// are plus what lies in each layer's Upper, and what it creates,
	// changes or deletes lands in Upper only. Every folder the command
	// could otherwise write needs a layer. The policy still applies to
	// the merged view: .git/ stays read-only (WriteGit is refused),
	// .catbuddy/ unreachable, the secrets hidden, no network unless
	// asked. Where Info.Overlay is false, Prepare fails with ErrNoOverlay.
	Overlay []OverlayLayer
}

// OverlayLayer is one workspace folder's copy-on-write layer.
type OverlayLayer struct {
	// Lower is the folder, mounted over itself: the command sees the
	// same paths. It is never written.
	Lower string
	// Upper holds what differs from Lower: files created or changed,
	// whiteouts for deletions, opaque directories (ScanUpper reads it).
	// Work is overlayfs's scratch directory, on Upper's filesystem.
	// Both may lie in a root's .catbuddy/ (the kernel allows an upper
	// inside its own lower) or anywhere outside every Lower; a
	// filesystem without user extended attributes (NFS, tmpfs before
	// Linux 6.6) cannot hold them. They are created when missing, and
	// one command at a time may run over them.
	Upper, Work string
}
