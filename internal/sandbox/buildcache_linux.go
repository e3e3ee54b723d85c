package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// workspaceBuildEnv points the build tools that can build out of the
// tree, when told where, at a directory of the workspace's own in the
// private cache: cargo's target directory, Python's bytecode and
// pytest's cache (its --lf, --ff state). In the read-only sandbox they
// would otherwise fail (cargo: "Read-only file system" at <ws>/target),
// warn on every run (pytest: "could not create cache path") or, for
// Python, silently write nothing and compile again on every call. The directory persists, so the second
// `cargo test` builds incrementally; it is per workspace, so what one
// project's commands leave there (a build script's output, bytecode)
// is never run by another project's. The user's own builds never read
// it. Tools that still write in the tree (make, Gradle, Maven) need the
// write policy. nil when the directory cannot be made.
func workspaceBuildEnv(cache, workRoot string) map[string]string {
	dir := filepath.Join(cache, "workspaces", workspaceKey(workRoot))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	return map[string]string{
		"CARGO_TARGET_DIR":    filepath.Join(dir, "cargo-target"),
		"PYTHONPYCACHEPREFIX": filepath.Join(dir, "pycache"),
		// pytest splits PYTEST_ADDOPTS as a shell would, so the path is
		// quoted; options on the command line come after it and win.
		"PYTEST_ADDOPTS": "-o cache_dir=" + shellQuote(filepath.Join(dir, "pytest")),
	}
}

// shellQuote quotes s for a POSIX shell's (and Python's shlex) word
// splitting.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// workspaceKey names a workspace's directory: its base name, for the
// user who looks, and a hash of its real path, so that two checkouts
// of one project do not share.
func workspaceKey(workRoot string) string {
	real := realOr(workRoot)
	sum := sha256.Sum256([]byte(real))
	base := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, filepath.Base(real))
	if len(base) > 40 {
		base = base[:40]
	}
	return base + "-" + hex.EncodeToString(sum[:8])
}
