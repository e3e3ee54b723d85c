package tools

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/guard"
)

// planSandbox computes the Landlock rules for one command: read and
// execute everywhere, write inside the workspace roots, the temp
// directories and the given extra directories (caches), and nothing at
// all inside the roots' .catbuddy/ or the user's catbuddy config —
// except the internal-mode work root, which stays writable.
//
// Landlock only grants, it cannot carve a hole under a granted
// directory, so a grant whose tree holds a denied path is split: the
// directory itself gets the grant minus reading files, and each entry
// beside the denied path gets the full grant. A file created by the
// command directly in such a directory (the workspace root itself, for
// one) can be written but not read back until the next command.
func planSandbox(roots []string, workRoot string, extraRW []string) []sandboxRule {
	return planRules(roots, workRoot, extraRW, sandboxDeny(roots))
}

// planHidden is the plan for a helper in its own mount namespace: the
// denied directories are hidden under an empty tmpfs, so plain grants
// suffice and new files in the workspace root stay readable. ok is
// false in internal mode, where the work root lies inside a denied
// directory and cannot be hidden with it.
func planHidden(roots []string, workRoot string, extraRW []string) (rules []sandboxRule, hide []string, ok bool) {
	deny := sandboxDeny(roots)
	if real, err := filepath.EvalSymlinks(workRoot); err == nil && underAny(real, deny) {
		return nil, nil, false
	}
	return planRules(roots, workRoot, extraRW, nil), deny, len(deny) > 0
}

// sandboxDeny lists the existing directories a command may not touch.
func sandboxDeny(roots []string) []string {
	var deny []string
	for _, r := range roots {
		deny = append(deny, filepath.Join(r, guard.StateDir))
	}
	if cfg, err := os.UserConfigDir(); err == nil {
		deny = append(deny, filepath.Join(cfg, "catbuddy"))
	}
	return existingReal(deny)
}

func planRules(roots []string, workRoot string, extraRW []string, deny []string) []sandboxRule {
	var rules []sandboxRule
	carve("/", llRead, deny, &rules)
	rw := append([]string(nil), roots...)
	if workRoot != "" {
		if real, err := filepath.EvalSymlinks(workRoot); err == nil && underAny(real, deny) {
			// Internal mode: only .catbuddy/workspace is the agent's.
			rules = append(rules, sandboxRule{real, llRead | llWrite})
			rw = nil
		}
	}
	rw = append(rw, "/tmp", "/var/tmp", "/dev/shm", os.TempDir())
	for _, p := range existingReal(append(rw, extraRW...)) {
		carve(p, llRead|llWrite, deny, &rules)
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"} {
		rules = append(rules, sandboxRule{dev, llRead | llWriteFile | llTruncate})
	}
	return rules
}

// defaultWritableCaches are directories build tools write to outside
// the workspace (Go's build and module caches, npm's cache); without
// them `go test` or `npm install` fail inside the sandbox.
func defaultWritableCaches() []string {
	var out []string
	if c, err := os.UserCacheDir(); err == nil {
		out = append(out, c)
	}
	home, _ := os.UserHomeDir()
	switch {
	case os.Getenv("GOMODCACHE") != "":
		out = append(out, os.Getenv("GOMODCACHE"))
	case os.Getenv("GOPATH") != "":
		out = append(out, filepath.Join(strings.Split(os.Getenv("GOPATH"), ":")[0], "pkg", "mod"))
	case home != "":
		out = append(out, filepath.Join(home, "go", "pkg", "mod"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".npm"))
	}
	return out
}

// carve grants access beneath path, except beneath any denied path.
func carve(path string, access uint64, deny []string, out *[]sandboxRule) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return
	}
	if underAny(real, deny) {
		return // a denied tree, or a symlink into one
	}
	holds := false
	for _, d := range deny {
		if isUnder(d, real) {
			holds = true
		}
	}
	if !holds {
		*out = append(*out, sandboxRule{real, access})
		return
	}
	*out = append(*out, sandboxRule{real, access &^ llReadFile})
	entries, err := os.ReadDir(real)
	if err != nil {
		return
	}
	for _, e := range entries {
		carve(filepath.Join(real, e.Name()), access, deny, out)
	}
}

// isUnder reports whether p is dir or lies beneath it.
func isUnder(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if isUnder(p, d) {
			return true
		}
	}
	return false
}

// existingReal returns the real paths of those that exist, once each.
func existingReal(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, real)
	}
	return out
}
