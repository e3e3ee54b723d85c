package sandbox

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Run is one confined command, ready to start.
type Run struct {
	// Cmd starts the helper, which confines itself and then executes the
	// request's Argv. The caller sets its output and runs it.
	Cmd *exec.Cmd
	tmp string
	// namespaced is set when the helper makes mounts in private
	// namespaces; see MountsFailed.
	namespaced bool
	// layers are the copy-on-write layers the command runs over, locks
	// their locks (held until Cleanup), dir its working directory.
	layers []OverlayLayer
	locks  []*os.File
	dir    string
	// made are the roots' .catbuddy/ directories Prepare made to hide
	// them; Cleanup removes them again while they are empty, so that
	// cb-ls leaves nothing in a project.
	made []string
}

// The helper reports mounts it could not make (an unusual /run, a
// kernel without mount_setattr) with this exit code and message, before
// anything of the command ran. exec then plans with split grants, for
// this call and the rest of the server's life: the caller prepares the
// command again and runs it once more (see MountsFailed).
const (
	mountsFailedCode = 125
	mountsFailed     = "cb-ls sandbox: private mounts failed"
)

var (
	mountsBroken atomic.Bool
	// mountTestFailure, when set, is a path the helper is told to cover
	// and cannot (a regular file): tests of the fallback use it.
	mountTestFailure string
)

// MountsFailed reports whether the helper of this run gave up on its
// mounts, judging by its exit code and output, and if so remembers it.
// Nothing of the command ran then: Prepare it again, and it is confined
// by split grants.
func (s *Run) MountsFailed(exitCode int, output string) bool {
	if !s.namespaced || exitCode != mountsFailedCode || !strings.HasPrefix(output, mountsFailed) {
		return false
	}
	if !mountsBroken.Swap(true) {
		slog.Warn("exec: the sandbox's private mounts failed; confining commands by split grants from now on", "error", strings.TrimSpace(output))
	}
	return true
}

// Cleanup removes the command's private TMPDIR and releases its layers;
// call it once the command has ended.
func (s *Run) Cleanup() {
	if s.locks != nil {
		clearMarks(s.layers)
	}
	unlockLayers(s.locks)
	s.locks = nil
	for _, d := range s.made {
		_ = os.Remove(d) // only while empty: never what the user put there since
	}
	s.made = nil
	if err := removeTree(s.tmp); err != nil {
		fmt.Fprintf(os.Stderr, "cb-ls: remove the command's TMPDIR: %v\n", err)
	}
}

// Prepare makes r ready to run confined by its policy: a private
// TMPDIR, the private build cache, the environment and the plan the
// helper (this binary re-executed, see Main) applies before it executes
// r.Argv.
func Prepare(r Request) (*Run, error) {
	prefix, cacheName := "cb-ls-exec-", "catbuddy-exec"
	if r.Server {
		prefix, cacheName = "cb-ls-server-", "catbuddy-servers"
	}
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, fmt.Errorf("create the command's TMPDIR: %v", err)
	}
	s := &Run{tmp: tmp, dir: realOr(r.Dir)}
	cache := privateCache(tmp, cacheName)
	home, _ := os.UserHomeDir()
	in := planInput{
		Roots: r.Roots, WorkRoot: r.WorkRoot, Policy: r.Policy, Home: home, UserDirs: r.UserDirs, Layered: lowers(r.Overlay),
		TmpDir: tmp, CacheDir: cache, ExtraRW: r.WritableDirs, ModCache: modCache(home),
	}
	if len(r.Argv) > 0 {
		in.Program = r.Argv[0]
	}
	var modOverlay *nsOverlay
	policy := r.Policy
	var spec helperSpec
	// Without namespaces only the command's shell dies with the server.
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if len(r.Overlay) > 0 {
		if info := Probe(); !info.Overlay {
			s.Cleanup()
			return nil, fmt.Errorf("%w: %s", ErrNoOverlay, info.OverlayReason)
		}
	}
	if namespacesErr() == nil && !splitOnly && !mountsBroken.Load() {
		if !in.internal() {
			// An existing directory is hidden under a mount; a missing
			// one (each root's .catbuddy/, the user's catbuddy config and
			// state, wherever XDG_* put them) would have to be carved
			// around with split grants, which leave the parents of the
			// gap unwritable (a private /tmp, a workspace root). They
			// are cb-ls's own, so they are made empty and hidden, and a
			// root's is removed again after the command. Under a
			// copy-on-write layer a root's needs neither.
			for _, sd := range in.stateDirs() {
				if _, err := os.Lstat(sd); err == nil || in.layeredStateDir(sd) {
					continue
				}
				if os.MkdirAll(sd, 0o700) == nil && filepath.Base(sd) == guard.StateDir {
					s.made = append(s.made, sd)
				}
			}
		}
		if len(r.Overlay) > 0 {
			in = in.withGits()
			if in.Gits != nil {
				in.Gits = append(in.Gits, upperGitDirs(r.Overlay)...)
			}
		}
		if r.Server {
			in, modOverlay = serverModCache(in, tmp)
		}
		rules, mounts := planNamespaced(in)
		mounts.ModCache = modOverlay
		if len(r.Overlay) > 0 {
			if s.layers, s.locks, err = planLayers(r, in); err != nil {
				s.Cleanup()
				return nil, err
			}
			mounts.Layers = s.layers
			hideLayers(mounts)
		}
		mounts.GoCache = goCacheOverlay(tmp, filepath.Join(cache, "go-build"))
		if mountTestFailure != "" {
			mounts.Private = append(mounts.Private, mountTestFailure)
		}
		mounts.ParentNS, err = os.Readlink("/proc/self/ns/mnt")
		if err != nil {
			s.Cleanup()
			return nil, fmt.Errorf("read the server's mount namespace: %v", err)
		}
		spec = helperSpec{Rules: rules, Mounts: mounts}
		attr = namespaceAttr(policy)
		s.namespaced = true
	} else {
		spec = helperSpec{Rules: planSplit(in), DenyTCP: !policy.Network}
	}
	spec.Argv, spec.Dir = r.Argv, r.Dir
	spec.DenyUnix = !policy.Network && socketsErr == nil
	b, err := json.Marshal(spec)
	if err != nil {
		s.Cleanup()
		return nil, err
	}
	s.Cmd = exec.Command("/proc/self/exe")
	// The helper shows as the command's shell (bash -c …) in ps.
	s.Cmd.Args = append([]string{filepath.Base(r.Argv[0])}, r.Argv[1:]...)
	set := map[string]string{
		"TMPDIR":           tmp,
		"GOCACHE":          filepath.Join(cache, "go-build"),
		"XDG_CACHE_HOME":   cache,
		"npm_config_cache": filepath.Join(cache, "npm"),
		specEnv:            string(b),
	}
	for k, v := range workspaceBuildEnv(cache, r.WorkRoot) {
		set[k] = v
	}
	s.Cmd.Env = r.Environ(set)
	s.Cmd.SysProcAttr = attr
	s.Cmd.Dir = r.Dir
	return s, nil
}

// privateCache is the build cache commands share with each other and
// with nobody else (name catbuddy-exec), or the one language servers
// share (catbuddy-servers), which commands cannot write: the user's own
// builds never read either, so nothing a command plants there runs
// later outside the sandbox. It persists, so only the first build
// after install is cold.
func privateCache(tmp, name string) string {
	if c, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(c, name)
		if os.MkdirAll(dir, 0o700) == nil {
			return dir
		}
	}
	dir := filepath.Join(tmp, "cache")
	os.Mkdir(dir, 0o700)
	return dir
}

// serverModCache makes a server's module cache a copy-on-write view of
// the user's (Request.Server): writable for the server, not read-only
// as for commands, over an upper layer in its TMPDIR. nil when there is
// no module cache yet: it then stays out of reach as for commands.
func serverModCache(in planInput, tmp string) (planInput, *nsOverlay) {
	fi, err := os.Stat(in.ModCache)
	if in.ModCache == "" || err != nil || !fi.IsDir() {
		return in, nil
	}
	scratch := filepath.Join(tmp, ".modcache")
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return in, nil
	}
	target := realOr(in.ModCache)
	in.ExtraRW = append(append([]string{}, in.ExtraRW...), target)
	in.ModCache = ""
	return in, &nsOverlay{Lower: target, Target: target, Scratch: scratch,
		Upper: filepath.Join(scratch, "upper"), Work: filepath.Join(scratch, "work")}
}

// modCache is Go's module cache: readable by commands, never writable,
// since the user's next build runs whatever lies there.
func modCache(home string) string {
	switch {
	case os.Getenv("GOMODCACHE") != "":
		return os.Getenv("GOMODCACHE")
	case os.Getenv("GOPATH") != "":
		return filepath.Join(filepath.SplitList(os.Getenv("GOPATH"))[0], "pkg", "mod")
	case home != "":
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}
