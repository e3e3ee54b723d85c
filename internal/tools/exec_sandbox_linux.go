package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

var (
	probeOnce sync.Once
	probed    SandboxInfo
	features  landlockFeatures
	// socketsErr says why commands without the network policy can still
	// open unix sockets (see exec_seccomp_linux.go), nil where they cannot.
	socketsErr error
)

// Sandbox reports what confinement this system gives commands.
func Sandbox() SandboxInfo {
	probeOnce.Do(func() { probed = probeSandbox() })
	switch {
	case probed.Namespaces && mountsBroken.Load():
		return describeSandbox(features, errors.New("the private mounts failed"), socketsErr)
	case probed.Namespaces && splitOnly:
		return describeSandbox(features, errors.New("split grants forced by a test"), socketsErr)
	}
	return probed
}

func probeSandbox() SandboxInfo {
	abi, err := landlockABI()
	if err != nil {
		return SandboxInfo{Summary: "off (" + err.Error() + "): commands run with the server's rights"}
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		return SandboxInfo{Summary: fmt.Sprintf("off (/proc/self/exe is not available to re-execute the sandbox helper: %v)", err)}
	}
	features = probeLandlock(abi)
	socketsErr = seccompErr()
	return describeSandbox(features, namespacesErr(), socketsErr)
}

// describeSandbox says what commands get from these Landlock features
// with (nsErr == nil) or without private namespaces, and with (sockErr
// == nil) or without the seccomp filter that denies unix sockets.
func describeSandbox(f landlockFeatures, nsErr, sockErr error) SandboxInfo {
	info := SandboxInfo{Landlock: f.ABI}
	if nsErr == nil {
		info.Namespaces, info.Full = true, true
		info.Summary = fmt.Sprintf("Landlock ABI %d + private user, mount, network and PID namespaces", f.ABI)
		if sockErr == nil {
			info.Summary += " + seccomp (no unix sockets without network)"
		} else {
			info.Full = false
			info.Summary += fmt.Sprintf("; path-named sockets outside /tmp and /run reachable (%v)", sockErr)
		}
	} else {
		var missing []string
		switch {
		case f.Net&llNetUDP != 0:
			missing = append(missing, "network blocked by Landlock alone")
		case f.Net != 0:
			missing = append(missing, "only TCP blocked, UDP open")
		default:
			missing = append(missing, "network open (Landlock ABI < 4)")
		}
		missing = append(missing,
			"processes that leave the process group can outlive the call",
			"names in .catbuddy/ and ~/.ssh listable, contents not (so every command is asked about while .catbuddy/ exists)",
			"nothing can be created directly in the workspace root")
		if sockErr != nil && f.FS&llResolveUnix == 0 {
			missing = append(missing, fmt.Sprintf("path-named sockets reachable (%v)", sockErr))
		}
		info.Summary = fmt.Sprintf("partial: Landlock ABI %d without namespaces (%v): %s", f.ABI, nsErr, strings.Join(missing, "; "))
	}
	if f.Scoped == 0 {
		info.Full = false
		info.Summary += "; abstract sockets and signals not scoped (Landlock ABI < 6)"
	}
	return info
}

// sandboxRun is one confined command, ready to start.
type sandboxRun struct {
	cmd *exec.Cmd
	tmp string
	// namespaced is set when the helper makes mounts in private
	// namespaces; see mountsFailedIn.
	namespaced bool
}

// The helper reports mounts it could not make (an unusual /run, a
// kernel without mount_setattr) with this exit code and message, before
// anything of the command ran. exec then plans with split grants, for
// this call and the rest of the server's life.
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

// mountsFailedIn reports whether the helper of this run gave up on its
// mounts, judging by its exit code and output, and if so remembers it.
func (s *sandboxRun) mountsFailedIn(exitCode int, output string) bool {
	if !s.namespaced || exitCode != mountsFailedCode || !strings.HasPrefix(output, mountsFailed) {
		return false
	}
	if !mountsBroken.Swap(true) {
		slog.Warn("exec: the sandbox's private mounts failed; confining commands by split grants from now on", "error", strings.TrimSpace(output))
	}
	return true
}

// cleanup removes the command's private TMPDIR.
func (s *sandboxRun) cleanup() {
	_ = filepath.WalkDir(s.tmp, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700) // Go's module cache, for one, leaves read-only directories
		}
		return nil
	})
	if err := os.RemoveAll(s.tmp); err != nil {
		fmt.Fprintf(os.Stderr, "cb-ls: remove the command's TMPDIR: %v\n", err)
	}
}

// newSandboxRun prepares argv to run confined by policy: a private
// TMPDIR, the private build cache, the environment allow-list and the
// plan the helper (this binary re-executed, see init) applies before it
// executes argv.
func newSandboxRun(roots []string, workRoot, dir string, policy SandboxPolicy, opts ExecOptions, argv []string) (*sandboxRun, error) {
	tmp, err := os.MkdirTemp("", "cb-ls-exec-")
	if err != nil {
		return nil, fmt.Errorf("create the command's TMPDIR: %v", err)
	}
	s := &sandboxRun{tmp: tmp}
	cache := privateCache(tmp)
	home, _ := os.UserHomeDir()
	in := planInput{
		Roots: roots, WorkRoot: workRoot, Policy: policy, Home: home,
		TmpDir: tmp, CacheDir: cache, ExtraRW: opts.WritableDirs, ModCache: modCache(home),
	}
	var spec sandboxSpec
	attr := &syscall.SysProcAttr{Setpgid: true}
	if namespacesErr() == nil && !splitOnly && !mountsBroken.Load() {
		if !in.internal() {
			// An existing directory is hidden under a mount; a missing
			// one (each root's .catbuddy/, the user's catbuddy config and
			// state, wherever XDG_* put them) would have to be carved
			// around with split grants, which leave the parents of the
			// gap unwritable (a private /tmp, a workspace root). They
			// are cb-ls's own, so they are made empty and hidden.
			for _, sd := range in.stateDirs() {
				_ = os.MkdirAll(sd, 0o700)
			}
		}
		rules, mounts := planNamespaced(in)
		mounts.GoCache = goCacheOverlay(tmp, filepath.Join(cache, "go-build"))
		if mountTestFailure != "" {
			mounts.Private = append(mounts.Private, mountTestFailure)
		}
		mounts.ParentNS, err = os.Readlink("/proc/self/ns/mnt")
		if err != nil {
			s.cleanup()
			return nil, fmt.Errorf("read the server's mount namespace: %v", err)
		}
		spec = sandboxSpec{Rules: rules, Mounts: mounts}
		attr = namespaceAttr(policy)
		s.namespaced = true
	} else {
		spec = sandboxSpec{Rules: planSplit(in), DenyTCP: !policy.Network}
	}
	spec.Argv, spec.Dir = argv, dir
	spec.DenyUnix = !policy.Network && socketsErr == nil
	b, err := json.Marshal(spec)
	if err != nil {
		s.cleanup()
		return nil, err
	}
	env, dropped := commandEnv(os.Environ(), opts.Env, map[string]string{
		"TMPDIR":           tmp,
		"GOCACHE":          filepath.Join(cache, "go-build"),
		"XDG_CACHE_HOME":   cache,
		"npm_config_cache": filepath.Join(cache, "npm"),
		sandboxEnv:         string(b),
	})
	if len(dropped) > 0 {
		debugDropped(dropped)
	}
	s.cmd = exec.Command("/proc/self/exe")
	s.cmd.Args = append([]string{"sh"}, argv[1:]...)
	s.cmd.Env = env
	s.cmd.SysProcAttr = attr
	s.cmd.Dir = dir
	return s, nil
}

// privateCache is the build cache commands share with each other and
// with nobody else: the user's own builds never read it, so nothing a
// command plants there runs later outside the sandbox. It persists, so
// only the first build after install is cold.
func privateCache(tmp string) string {
	if c, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(c, "catbuddy-exec")
		if os.MkdirAll(dir, 0o700) == nil {
			return dir
		}
	}
	dir := filepath.Join(tmp, "cache")
	os.Mkdir(dir, 0o700)
	return dir
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

// init turns any binary linking tools into the sandbox helper when the
// spec variable is set: it confines its own thread and execs the
// command, never returning. Doing it in init (rather than in a cb-ls
// subcommand) makes the same path work from test binaries.
func init() {
	raw, ok := os.LookupEnv(sandboxEnv)
	if !ok {
		return
	}
	os.Unsetenv(sandboxEnv)
	runtime.LockOSThread()
	err := enterSandbox(raw)
	fmt.Fprintf(os.Stderr, "cb-ls sandbox: %v; the command was not run\n", err)
	os.Exit(126)
}

// enterSandbox applies the spec and execs its argv; it returns only on
// failure.
func enterSandbox(raw string) error {
	var spec sandboxSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return fmt.Errorf("bad spec: %v", err)
	}
	if len(spec.Argv) == 0 {
		return fmt.Errorf("bad spec: no command")
	}
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	if m := spec.Mounts; m != nil {
		if err := applyMounts(m); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", mountsFailed, err)
			os.Exit(mountsFailedCode)
		}
		if m.Loopback {
			if err := loopbackUp(); err != nil {
				fmt.Fprintf(os.Stderr, "cb-ls sandbox: no loopback in the private network: %v\n", err)
			}
		}
		mountProc()
		if err := unix.Chdir(spec.Dir); err != nil {
			return fmt.Errorf("enter %s: %v", spec.Dir, err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := restrictSelf(probeLandlock(abi), spec.Rules, spec.DenyTCP); err != nil {
		return err
	}
	if spec.DenyUnix {
		if err := denyUnixSockets(); err != nil {
			return err
		}
	}
	return unix.Exec(spec.Argv[0], spec.Argv, os.Environ())
}
