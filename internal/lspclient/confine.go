package lspclient

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/shell"
)

// A language server reads the project, and the project can steer it:
// gopls runs the go command, which with GOFLAGS=-mod=mod rewrites
// go.mod; typescript-language-server loads the project's own
// TypeScript and the tsserver plugins its tsconfig.json names. So the
// servers run confined as exec's commands do (package sandbox), started
// through the sandbox helper: the workspace folders and every git
// directory read-only, no root's .catbuddy/, the user's catbuddy config
// and state and the well-known secrets hidden, the network on (gopls
// downloads modules). What a server may write: its private TMPDIR and
// its caches, which persist in ~/.cache/catbuddy-servers
// (XDG_CACHE_HOME, so gopls's and TypeScript's own caches, GOCACHE over
// a copy-on-write view of the user's Go build cache, npm_config_cache),
// and, with namespaces, a copy-on-write view of the module cache, whose
// downloads are the server's for its life. Every edit of the project
// goes through the tools' review, never through a server.
//
// Where the sandbox is off (not Linux, no Landlock) or the user turned
// it off, servers start unconfined; cb-ls logs why once, and the
// starting status says so.

// confinement says how servers start here: confined, and if not why.
type confinement struct {
	confined bool
	reason   string // why not, for the status line and the log
}

// confinementOf decides for a client with opts.
func confinementOf(opts Options) confinement {
	if opts.NoSandbox {
		return confinement{reason: "the user turned the sandbox off (tools.execSandbox: false)"}
	}
	if info := sandbox.Probe(); info.Landlock == 0 {
		return confinement{reason: "the sandbox is " + info.Summary}
	}
	return confinement{confined: true}
}

// note is the starting status's suffix.
func (c confinement) note() string {
	if c.confined {
		return " (sandboxed: workspace read-only)"
	}
	return " (not sandboxed)"
}

var unconfinedOnce sync.Once

// serverProcess is a server's process as started: the command, and the
// sandbox run to clean up after it exits (nil when unconfined).
type serverProcess struct {
	cmd *exec.Cmd
	sb  *sandbox.Run
}

// serverCommand builds the command that starts cfg's server in roots.
func serverCommand(name string, cfg ServerConfig, roots []string, conf confinement) (serverProcess, error) {
	dir, _ := os.Getwd()
	if len(roots) > 0 {
		dir = roots[0]
	}
	if !conf.confined {
		unconfinedOnce.Do(func() {
			slog.Warn("language servers run unconfined: they can write the workspace", "reason", conf.reason)
		})
		cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
		if len(roots) > 0 {
			cmd.Dir = dir
		}
		cmd.Env = serverEnviron(nil)
		return serverProcess{cmd: cmd}, nil
	}
	path, err := exec.LookPath(cfg.Command[0])
	if err != nil {
		return serverProcess{}, fmt.Errorf("start language server %s (%s): %w", name, cfg.Command[0], err)
	}
	if path, err = filepath.Abs(path); err != nil {
		return serverProcess{}, fmt.Errorf("start language server %s (%s): %w", name, cfg.Command[0], err)
	}
	sb, err := sandbox.Prepare(sandbox.Request{
		Roots: roots, WorkRoot: dir, Dir: dir, Argv: append([]string{path}, cfg.Command[1:]...),
		Policy: sandbox.Policy{Network: true}, Server: true,
		UserDirs: []string{config.UserDir(os.Getenv), config.StateDir(os.Getenv)},
		Environ:  serverEnviron,
	})
	if err != nil {
		return serverProcess{}, fmt.Errorf("language server %s: the sandbox: %w", name, err)
	}
	return serverProcess{cmd: sb.Cmd, sb: sb}, nil
}

// serverEnviron is a server's environment: cb-ls's own, without the
// variables whose names say they hold a credential (model keys, tokens),
// with set on top. Confined (set is the sandbox's), GOFLAGS's -mod=mod
// becomes -mod=readonly: the go command gopls runs could not write
// go.mod anyway and, told it may, fails to load the module at all.
func serverEnviron(set map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if _, over := set[name]; over || shell.IsSecretEnv(name) {
			continue
		}
		if name == "GOFLAGS" && set != nil {
			kv = name + "=" + readOnlyGoFlags(value)
		}
		env = append(env, kv)
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// readOnlyGoFlags replaces -mod=mod in flags with -mod=readonly.
func readOnlyGoFlags(flags string) string {
	fields := strings.Fields(flags)
	for i, f := range fields {
		if f == "-mod=mod" || f == "--mod=mod" {
			fields[i] = "-mod=readonly"
		}
	}
	return strings.Join(fields, " ")
}

// mountsFailed reports whether the helper gave up on its private
// mounts before the server ran (sandbox.Run.MountsFailed): the server
// is then prepared once more, confined by split grants.
func (p serverProcess) mountsFailed(output string) bool {
	if p.sb == nil || p.cmd.ProcessState == nil {
		return false
	}
	return p.sb.MountsFailed(p.cmd.ProcessState.ExitCode(), output)
}

// cleanup removes the sandbox's TMPDIR once the server has exited.
func (p serverProcess) cleanup() {
	if p.sb != nil {
		p.sb.Cleanup()
	}
}
