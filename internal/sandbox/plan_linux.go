package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// planInput is everything one command's confinement depends on. Paths
// are as configured; the planner resolves symlinks itself.
type planInput struct {
	Roots    []string
	WorkRoot string
	Policy   Policy
	Home     string
	// TmpDir and CacheDir are the command's private TMPDIR and build
	// cache, always writable.
	TmpDir, CacheDir string
	ExtraRW          []string
	// ModCache is Go's module cache: readable, never writable.
	ModCache string
	// UserDirs are the user's catbuddy config and state (Request.UserDirs).
	UserDirs []string
	// Layered are the roots the command sees through a copy-on-write
	// layer (Request.Overlay's lowers): whatever it makes there lands in
	// the layer, never in the folder.
	Layered []string
	// Program is the command's program (Request.Argv[0]): its directory
	// is bound back where it lies under a hidden one (a test binary, a
	// server installed under /tmp).
	Program string
	// Gits are the git directories and .git files that stay read-only
	// when the workspace is writable (gitdirs_linux.go), real paths;
	// withGits finds them when the caller did not.
	Gits []string
}

// withGits returns in with Gits found, where the policy needs them: a
// workspace writable but not its .git. In internal mode the roots are
// sensitive places (home, /) that are never writable, and only their
// own .git is listed, as it always was.
func (in planInput) withGits() planInput {
	if in.Gits != nil || !in.Policy.WriteWorkspace || in.Policy.WriteGit {
		return in
	}
	if in.internal() {
		for _, r := range in.Roots {
			in.Gits = append(in.Gits, filepath.Join(realOr(r), ".git"))
		}
		return in
	}
	in.Gits = gitDirs(in.Roots)
	if in.Gits == nil {
		in.Gits = []string{}
	}
	return in
}

// secretDirs and secretFiles are the well-known places credentials live,
// relative to home. A command never sees them.
var (
	secretDirs  = []string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".azure", ".password-store"}
	secretFiles = []string{".docker/config.json", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".config/gh/hosts.yml"}
)

// stateDirs are the directories no command may read, write or create:
// each root's .catbuddy/ (whether or not it exists yet), the user's
// catbuddy config (keys, MCP servers) and state (trust decisions).
func (in planInput) stateDirs() []string {
	var out []string
	for _, r := range in.Roots {
		sd := filepath.Join(realOr(r), guard.StateDir)
		out = append(out, sd)
		if real, err := filepath.EvalSymlinks(sd); err == nil && real != sd {
			out = append(out, real) // a .catbuddy that is a symlink hides its target
		}
	}
	for _, d := range in.UserDirs {
		if d != "" {
			out = append(out, realOr(d))
		}
	}
	return out
}

// layeredStateDir reports whether sd is a root's .catbuddy/ under a
// copy-on-write layer: a missing one needs neither hiding nor making,
// for what a command creates there lands in the layer, and a keep never
// writes .catbuddy/ (package changeset).
func (in planInput) layeredStateDir(sd string) bool {
	for _, r := range in.Layered {
		if sd == filepath.Join(realOr(r), guard.StateDir) {
			return true
		}
	}
	return false
}

// secrets returns the existing secret directories and files.
func (in planInput) secrets() (dirs, files []string) {
	if in.Home == "" {
		return nil, nil
	}
	home := realOr(in.Home)
	for _, d := range secretDirs {
		dirs = append(dirs, filepath.Join(home, d))
	}
	for _, f := range secretFiles {
		files = append(files, filepath.Join(home, f))
	}
	return existingReal(dirs), existingReal(files)
}

// internal reports whether the work root lies inside a state directory
// (internal mode: the agent's own .catbuddy/workspace).
func (in planInput) internal() bool {
	return in.WorkRoot != "" && underAny(realOr(in.WorkRoot), in.stateDirs())
}

// writable lists what the command may write: its own directories, the
// configured extras and, by policy, the workspace.
func (in planInput) writable() []string {
	w := append([]string{in.TmpDir, in.CacheDir}, in.ExtraRW...)
	if in.Policy.WriteWorkspace && !in.internal() {
		w = append(w, in.Roots...)
	}
	return existingReal(w)
}

// internalRules grants the internal-mode work root, which lies inside a
// denied .catbuddy/ and so is granted by a rule of its own.
func (in planInput) internalRules() []rule {
	if !in.internal() {
		return nil
	}
	access := uint64(llRead)
	if in.Policy.WriteWorkspace {
		access |= llWrite
	}
	return []rule{{realOr(in.WorkRoot), access}}
}

// writeDeny lists what no write grant may cover, even one beneath a
// writable directory: the state and secret places, the module cache,
// the workspace unless the policy opens it, and .git unless it says so.
func (in planInput) writeDeny() []string {
	dirs, files := in.secrets()
	deny := append(append(in.stateDirs(), dirs...), files...)
	if in.ModCache != "" {
		deny = append(deny, realOr(in.ModCache))
	}
	if !in.Policy.WriteWorkspace {
		deny = append(deny, existingReal(in.Roots)...)
		if in.internal() {
			deny = append(deny, realOr(in.WorkRoot))
		}
	} else if !in.Policy.WriteGit {
		deny = append(deny, in.withGits().Gits...)
	}
	return deny
}

// planSplit is the confinement by Landlock grants alone, used where the
// helper has no private mount namespace. Landlock only grants, it cannot
// carve a hole under a granted directory, so a grant whose tree holds a
// denied path is split (see carve): the directory itself gets at most
// listing, and each entry beside the denied path gets the full grant.
// The price: names in .catbuddy/ and ~/.ssh can be listed, and with
// write access nothing can be created directly in the workspace root.
func planSplit(in planInput) []rule {
	in = in.withGits()
	dirs, files := in.secrets()
	readDeny := append(append(in.stateDirs(), dirs...), files...)
	var rules []rule
	carve("/", llRead, llReadDir|llExecute, readDeny, &rules)
	rules = append(rules, in.internalRules()...)
	for _, w := range in.writable() {
		carve(w, llRead|llWrite, 0, in.writeDeny(), &rules)
	}
	return append(rules, deviceRules()...)
}

// planNamespaced is the confinement for a helper in its own namespaces:
// the mounts hide what must not be seen and make the workspace (or its
// .git) read-only, so the grants stay whole and simple.
func planNamespaced(in planInput) ([]rule, *nsMounts) {
	in = in.withGits()
	m := &nsMounts{Loopback: !in.Policy.Network}
	internal := in.internal()
	var deny []string // what the mounts cannot cover: grants carve around it
	for _, sd := range in.stateDirs() {
		if internal {
			deny = append(deny, sd)
		} else if fi, err := os.Stat(sd); err == nil && fi.IsDir() {
			m.Hide = append(m.Hide, realOr(sd))
		} else if !in.layeredStateDir(sd) {
			deny = append(deny, sd)
		}
	}
	dirs, files := in.secrets()
	m.Hide = append(m.Hide, dirs...)
	m.HideFiles = files
	for _, p := range existingReal([]string{"/tmp", "/var/tmp", "/dev/shm", os.TempDir()}) {
		if !underAny(p, m.Private) {
			m.Private = append(m.Private, p) // a TMPDIR under /tmp goes with it
		}
	}
	for _, run := range existingReal([]string{"/run", "/var/run"}) {
		if !underAny(run, m.Private) && !underAny(run, m.Hide) {
			m.Hide = append(m.Hide, run) // sockets: docker, the user's session bus, editors
		}
	}
	switch {
	case internal:
		// The roots are sensitive places (home, /) that no grant covers;
		// only the work root inside .catbuddy/ is the agent's.
	case !in.Policy.WriteWorkspace:
		m.ReadOnly = existingReal(in.Roots)
	case !in.Policy.WriteGit:
		// Each is mounted only where it exists when the helper starts,
		// in the merged view over a layer: a layer's own repository
		// exists only there.
		m.ReadOnly = append(m.ReadOnly, in.Gits...)
	}
	m.ReadOnly = append(m.ReadOnly, existingReal([]string{in.ModCache})...)
	m.Keep = in.keeps(append(append([]string{}, m.Private...), m.Hide...))

	var rules []rule
	carve("/", llRead, llReadDir|llExecute, deny, &rules)
	rules = append(rules, in.internalRules()...)
	// The read-only mounts guard the workspace and the module cache, so
	// only what the mounts could not cover needs carving around.
	for _, w := range append(in.writable(), m.Private...) {
		carve(w, llRead|llWrite, 0, deny, &rules)
	}
	return append(rules, deviceRules()...), m
}

// keeps lists the paths under the hidden directories that the command
// still needs, outermost first: the workspace, home, its own TMPDIR and
// cache, the toolchains on PATH, and, with network, the resolver
// config that /etc/resolv.conf may point into /run.
func (in planInput) keeps(hidden []string) []nsKeep {
	writable := in.writable()
	if in.internal() && in.Policy.WriteWorkspace {
		writable = append(writable, realOr(in.WorkRoot))
	}
	cand := append([]string{in.Home, in.ModCache, os.Getenv("GOROOT"), in.WorkRoot}, in.Roots...)
	if filepath.IsAbs(in.Program) && underAny(filepath.Clean(in.Program), hidden) {
		cand = append(cand, filepath.Dir(in.Program))
	}
	cand = append(cand, writable...)
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		// Resolving every PATH entry costs more than the rest of the
		// plan; one that names a hidden directory is what matters.
		if filepath.IsAbs(p) && underAny(filepath.Clean(p), hidden) {
			cand = append(cand, p)
		}
	}
	if in.Policy.Network {
		cand = append(cand, "/etc/resolv.conf")
	}
	var out []nsKeep
	for _, p := range existingReal(cand) {
		if !underAny(p, hidden) || slices.Contains(hidden, p) {
			continue
		}
		w := slices.Contains(writable, p)
		out = append(out, nsKeep{Path: p, Writable: w})
	}
	slices.SortFunc(out, func(a, b nsKeep) int { return len(a.Path) - len(b.Path) })
	return out
}

func deviceRules() []rule {
	var rules []rule
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"} {
		rules = append(rules, rule{dev, llRead | llWriteFile | llTruncate | llIoctlDev})
	}
	return rules
}

// carve grants access beneath path, except beneath any denied path. A
// directory holding a denied path gets only parentAccess (a Landlock
// grant covers its whole tree, the denied part included) and each of its
// entries is carved in turn. Symlinked entries get nothing: what they
// point to is granted, or not, under its own path. visited keeps a
// directory reached twice (a bind mount, a loop) from being walked again.
func carve(path string, access, parentAccess uint64, deny []string, out *[]rule) {
	carveSeen(path, access, parentAccess, deny, map[string]bool{}, out)
}

func carveSeen(path string, access, parentAccess uint64, deny []string, visited map[string]bool, out *[]rule) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil || visited[real] {
		return
	}
	visited[real] = true
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
		*out = append(*out, rule{real, access})
		return
	}
	if parentAccess != 0 {
		*out = append(*out, rule{real, parentAccess})
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		carveSeen(filepath.Join(real, e.Name()), access, parentAccess, deny, visited, out)
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

// realOr returns p with symlinks resolved, or p cleaned when it does not
// exist (yet).
func realOr(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
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
