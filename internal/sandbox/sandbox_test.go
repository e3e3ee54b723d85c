//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/shell"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// sandboxCase is a workspace under the system temp directory and a fake
// home holding the usual secrets, for commands run straight through the
// sandbox (the command guard, a floor and not the boundary, is
// bypassed: these commands are what a guard cannot recognise).
type sandboxCase struct {
	t *testing.T
	// roots and workRoot are the workspace as the guard sees it.
	roots    []string
	workRoot string
	root     string
	home     string
	// overlay, when set, runs every command over these layers.
	overlay []OverlayLayer
}

func newSandboxCase(t *testing.T) *sandboxCase {
	t.Helper()
	info := Probe()
	testenv.NeedsSandbox(t, info.Landlock > 0, "Landlock", info.Summary)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	for rel, content := range map[string]string{
		".ssh/id_rsa":                      "PRIVATE-KEY-ssh",
		".aws/credentials":                 "PRIVATE-KEY-aws",
		".gnupg/secring.gpg":               "PRIVATE-KEY-gpg",
		".config/gcloud/creds.db":          "PRIVATE-KEY-gcloud",
		".kube/config":                     "PRIVATE-KEY-kube",
		".docker/config.json":              "PRIVATE-KEY-docker",
		".netrc":                           "PRIVATE-KEY-netrc",
		".git-credentials":                 "PRIVATE-KEY-gitcred",
		".npmrc":                           "PRIVATE-KEY-npmrc",
		".pypirc":                          "PRIVATE-KEY-pypirc",
		".config/catbuddy/config.json":     "PRIVATE-KEY-catbuddy",
		".local/state/catbuddy/trust.json": "PRIVATE-KEY-trust",
		"readable.txt":                     "home-readable",
	} {
		writeTestFile(t, filepath.Join(home, rel), content)
	}
	root := t.TempDir()
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	root = g.WorkRoot()
	if !strings.HasPrefix(root, filepath.Clean(os.TempDir())) {
		t.Fatalf("workspace %s is not under the temp dir %s", root, os.TempDir())
	}
	writeTestFile(t, filepath.Join(root, "keep.txt"), "keep")
	writeTestFile(t, filepath.Join(root, "src", "a.go"), "package a")
	writeTestFile(t, filepath.Join(root, ".git", "config"), "[core]")
	writeTestFile(t, filepath.Join(root, ".git", "hooks", "README"), "hooks")
	return &sandboxCase{t: t, roots: g.Roots(), workRoot: root, root: root, home: home}
}

// run runs line confined by p in the workspace root and returns its
// output.
func (c *sandboxCase) run(line string, p Policy) string {
	c.t.Helper()
	return c.runIn(c.root, line, p)
}

// runIn runs line with /bin/sh -c in dir, confined by p, as the exec
// tool does: with the user's dirs hidden, the environment allow-list,
// the process group killed when the shell ends, prepared once more when
// the helper's mounts failed, and the output followed by the note the
// tool's result ends with ([sandbox: on, <summary>: <policy>]).
func (c *sandboxCase) runIn(dir, line string, p Policy) string {
	c.t.Helper()
	for attempt := 0; ; attempt++ {
		info := Probe()
		r := c.prepare(dir, line, p)
		out := shell.NewOutput(30000)
		res, err := shell.Run(c.t.Context(), r.Cmd, out, 30*time.Second, 200*time.Millisecond)
		r.Cleanup()
		if err != nil {
			c.t.Fatalf("start %q: %v", line, err)
		}
		if attempt == 0 && r.MountsFailed(res.ExitCode, out.String()) {
			continue
		}
		text := out.String()
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		return fmt.Sprintf("%s[exit code %d] [sandbox: on, %s: %s]", text, res.ExitCode, info.Summary, p)
	}
}

// prepare readies line to run with /bin/sh -c in dir, confined by p,
// as the exec tool does.
func (c *sandboxCase) prepare(dir, line string, p Policy) *Run {
	c.t.Helper()
	r, err := Prepare(Request{
		Roots: c.roots, WorkRoot: c.workRoot, Dir: dir, Argv: []string{"/bin/sh", "-c", line}, Policy: p, Overlay: c.overlay,
		UserDirs: []string{config.UserDir(os.Getenv), config.StateDir(os.Getenv)},
		Environ: func(set map[string]string) []string {
			env, _ := shell.Environ(os.Environ(), nil, set)
			return env
		},
	})
	if err != nil {
		c.t.Fatalf("prepare sandbox: %v", err)
	}
	return r
}

func (c *sandboxCase) fileIs(rel, want string) {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.root, rel))
	if err != nil || string(b) != want {
		c.t.Errorf("%s = %q, %v; want %q", rel, b, err, want)
	}
}

func (c *sandboxCase) absent(rel string) {
	c.t.Helper()
	if _, err := os.Lstat(filepath.Join(c.root, rel)); err == nil {
		c.t.Errorf("%s exists: a confined command created it", rel)
	}
}

// forEachMode runs f with namespaces (where they work) and on the split
// grants used where user namespaces are disabled.
func forEachMode(t *testing.T, f func(t *testing.T)) {
	t.Run("namespaces", func(t *testing.T) {
		needsNamespaces(t)
		f(t)
	})
	t.Run("split", func(t *testing.T) {
		splitOnly = true
		t.Cleanup(func() { splitOnly = false })
		f(t)
	})
}

// TestSandboxWorkspaceReadOnly: by default nothing in the workspace can
// change, although it lives under the temp directory, and the command
// still reads everything and writes its own TMPDIR.
func TestSandboxWorkspaceReadOnly(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		for _, attack := range []string{
			"rm keep.txt",
			"echo gone > keep.txt",
			"sed -i s/keep/lost/ keep.txt",
			"cd .. && rm -rf " + filepath.Base(c.root),
			"$(echo rm) -f keep.txt",
			"mv keep.txt moved.txt",
			"echo new > src/new.go",
			"mkdir made",
			"ln -s /etc/passwd link",
		} {
			c.run(attack, Policy{})
			c.fileIs("keep.txt", "keep")
			c.fileIs("src/a.go", "package a")
			c.absent("moved.txt")
			c.absent("src/new.go")
			c.absent("made")
			c.absent("link")
		}
		out := c.run(`cat keep.txt src/a.go; cat "$HOME/readable.txt"; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"`, Policy{})
		for _, want := range []string{"keep", "package a", "home-readable", "t\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("reads / TMPDIR: output lacks %q: %q", want, out)
			}
		}
		// Nothing outside either: the home directory is read-only.
		c.run(`echo x > "$HOME/planted"`, Policy{})
		if _, err := os.Stat(filepath.Join(c.home, "planted")); err == nil {
			t.Error("a confined command wrote into the home directory")
		}
	})
}

// TestSandboxWriteWorkspace: with the user's approval the workspace is
// writable, and still not .git/ or .catbuddy/.
func TestSandboxWriteWorkspace(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		w := Policy{WriteWorkspace: true}
		out := c.run("echo changed > keep.txt && echo new > src/new.go && cat src/new.go", w)
		c.fileIs("keep.txt", "changed\n")
		c.fileIs("src/new.go", "new\n")
		if !strings.Contains(out, "new\n") {
			t.Errorf("a new file could not be read back: %q", out)
		}
		c.run("echo '#!/bin/sh' > .git/hooks/pre-commit; printf '[core]\\n\\tfsmonitor = evil\\n' >> .git/config; rm -rf .git", w)
		c.fileIs(".git/config", "[core]")
		c.absent(".git/hooks/pre-commit")
		if namespacesErr() == nil && !splitOnly {
			// With namespaces the root itself stays fully writable.
			c.run("echo top > top.txt && cat top.txt > top2.txt", w)
			c.fileIs("top2.txt", "top\n")
		}
		g := Policy{WriteWorkspace: true, WriteGit: true}
		c.run("echo '#!/bin/sh' > .git/hooks/pre-commit", g)
		c.fileIs(".git/hooks/pre-commit", "#!/bin/sh\n")
	})
}

// TestSandboxStateDirUnreachable: .catbuddy/ can be neither read, listed,
// written nor created, whether or not it exists, with write access too.
func TestSandboxStateDirUnreachable(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		for _, exists := range []bool{true, false} {
			c := newSandboxCase(t)
			sd := filepath.Join(c.root, ".catbuddy")
			if exists {
				writeTestFile(t, filepath.Join(sd, "secret"), "state-secret")
			}
			for _, p := range []Policy{{}, {WriteWorkspace: true}, {WriteWorkspace: true, WriteGit: true}} {
				out := c.run(`d=.catbudd; cat ${d}y/secret; ls -A ${d}y/; mkdir -p ${d}y; echo '{"mcpServers":{}}' > ${d}y/mcp.json; echo x > ${d}y/secret; rm -f ${d}y/secret`, p)
				if strings.Contains(out, "state-secret") {
					t.Errorf("exists=%v %v: .catbuddy/secret was read: %q", exists, p, out)
				}
				if exists && strings.Contains(out, "secret\n") && !splitOnly {
					t.Errorf("exists=%v %v: .catbuddy/ was listed: %q", exists, p, out)
				}
				if _, err := os.Stat(filepath.Join(sd, "mcp.json")); err == nil {
					t.Fatalf("exists=%v %v: a command created .catbuddy/mcp.json", exists, p)
				}
				if exists {
					c.fileIs(".catbuddy/secret", "state-secret")
				}
			}
			// The user's catbuddy config (keys, trust) is out of reach too.
			out := c.run(`cat "$HOME/.config/catbuddy/config.json" "$HOME/.local/state/catbuddy/trust.json"; echo '{}' > "$HOME/.local/state/catbuddy/trust.json"`, Policy{WriteWorkspace: true})
			if strings.Contains(out, "PRIVATE-KEY") {
				t.Errorf("user config or state read: %q", out)
			}
			if b, _ := os.ReadFile(filepath.Join(c.home, ".local/state/catbuddy/trust.json")); string(b) != "PRIVATE-KEY-trust" {
				t.Errorf("the trust decisions changed: %q", b)
			}
		}
	})
}

// TestSandboxSecretsHidden: the well-known credential files cannot be
// read, even with write access to the workspace.
func TestSandboxSecretsHidden(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		cmd := `for f in .ssh/id_rsa .aws/credentials .gnupg/secring.gpg .config/gcloud/creds.db .kube/config .docker/config.json .netrc .git-credentials .npmrc .pypirc; do cat "$HOME/$f"; done; cat "$HOME/readable.txt"`
		out := c.run(cmd, Policy{WriteWorkspace: true, Network: true})
		if strings.Contains(out, "PRIVATE-KEY") {
			t.Errorf("a secret was read: %q", out)
		}
		if !strings.Contains(out, "home-readable") {
			t.Errorf("an ordinary home file became unreadable: %q", out)
		}
		// The command holds no capability, even where the server runs as
		// root, so it cannot unmount what hides the secrets.
		out = c.run(`grep CapEff /proc/self/status; umount "$HOME/.ssh"; umount -l "$HOME/.ssh"; cat "$HOME/.ssh/id_rsa"`, Policy{WriteWorkspace: true})
		if strings.Contains(out, "PRIVATE-KEY") || !strings.Contains(out, "CapEff:\t0000000000000000") {
			t.Errorf("capabilities / unmount: %q", out)
		}
	})
}

// TestSandboxModuleAndBuildCaches: the module cache and the user's
// build cache are read-only (the user's next build would run what a
// command planted there); commands build into a private cache.
func TestSandboxModuleAndBuildCaches(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		mod := filepath.Join(t.TempDir(), "mod")
		writeTestFile(t, filepath.Join(mod, "example.com", "m@v1.0.0", "m.go"), "package m")
		t.Setenv("GOMODCACHE", mod)
		writeTestFile(t, filepath.Join(c.home, ".cache", "go-build", "README"), "user cache")
		out := c.run(`echo 'func init() { evil() }' >> "$GOMODCACHE/example.com/m@v1.0.0/m.go"; echo x > "$GOMODCACHE/planted"; `+
			`echo x > "$HOME/.cache/go-build/planted"; echo "gocache=$GOCACHE"; mkdir -p "$GOCACHE" && echo ok > "$GOCACHE/own" && cat "$GOCACHE/own"`,
			Policy{WriteWorkspace: true, Network: true})
		if b, _ := os.ReadFile(filepath.Join(mod, "example.com", "m@v1.0.0", "m.go")); string(b) != "package m" {
			t.Errorf("the module cache changed: %q", b)
		}
		for _, p := range []string{filepath.Join(mod, "planted"), filepath.Join(c.home, ".cache", "go-build", "planted")} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s was planted", p)
			}
		}
		private := filepath.Join(c.home, ".cache", "catbuddy-exec", "go-build")
		if !strings.Contains(out, "gocache="+private+"\n") || !strings.Contains(out, "ok\n") {
			t.Errorf("GOCACHE is not the private, writable cache %s: %q", private, out)
		}
	})
}

// TestSandboxSurvivesSymlinkLoops: a link loop in the workspace (or one
// committed in a repository) neither hangs nor crashes the planner.
func TestSandboxSurvivesSymlinkLoops(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		writeTestFile(t, filepath.Join(c.root, ".catbuddy", "x"), "x") // the root must be carved into
		for link, target := range map[string]string{"self-loop": ".", "a": "b", "b": "a", "src/up": "..", "src/deep": "../src/deep"} {
			if err := os.Symlink(target, filepath.Join(c.root, link)); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan string, 1)
		go func() {
			done <- c.run("ls -d self-loop/self-loop/src; echo planned", Policy{WriteWorkspace: true})
		}()
		select {
		case out := <-done:
			if !strings.Contains(out, "planned") {
				t.Errorf("command with link loops: %q", out)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("planning the sandbox of a workspace with link loops did not finish in 20 s")
		}
		in := planInput{Roots: []string{c.root}, WorkRoot: c.root, Policy: Policy{WriteWorkspace: true}, Home: c.home, TmpDir: t.TempDir(), CacheDir: t.TempDir(),
			UserDirs: []string{config.UserDir(os.Getenv), config.StateDir(os.Getenv)}}
		for _, r := range planSplit(in) {
			if fi, err := os.Lstat(r.Path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				t.Errorf("the plan grants through the symlink %s", r.Path)
			}
		}
	})
}

// TestSandboxUnprivileged reruns the red-team cases as an ordinary user
// (nobody), which is what most users are: namespaces and Landlock must
// work without root, and root's DAC override must not be what makes
// them pass here.
func TestSandboxUnprivileged(t *testing.T) {
	info := Probe()
	testenv.NeedsSandbox(t, info.Landlock > 0, "Landlock", info.Summary)
	out := testenv.RerunUnprivileged(t, "^TestSandbox(WorkspaceReadOnly|WriteWorkspace|StateDirUnreachable|SecretsHidden|ModuleAndBuildCaches|NoNetworkByDefault|SocketsOutsideUnreachable|GoCacheCopyOnWrite|UserDirsUnderTemp|SocketFilterSyscalls|NestedGitReadOnly|Server)$|^TestLayer(RmRfDeletesNothing|WritesLandInUpper|GitAndStateUntouched|NestedGitReadOnly|ShowsPlacedFiles|Teardown|Interrupted|NestedFolders)$")
	for _, name := range []string{"TestLayerRmRfDeletesNothing", "TestLayerTeardown", "TestLayerInterrupted", "TestSandboxNestedGitReadOnly", "TestLayerNestedGitReadOnly", "TestSandboxServer"} {
		if !strings.Contains(out, "--- PASS: "+name) {
			t.Errorf("as uid 65534 %s did not pass:\n%s", name, out)
		}
	}
	if strings.Contains(out, "remove the command's TMPDIR") {
		t.Errorf("as uid 65534 a command's TMPDIR could not be removed:\n%s", out)
	}
}

func TestDescribeSandbox(t *testing.T) {
	full := describe(landlockFeatures{ABI: 7, Net: llNetTCP, Scoped: llScope, FS: llRead | llWrite}, nil, nil)
	if !full.Full || !full.Namespaces || !strings.Contains(full.Summary, "Landlock ABI 7 + private user, mount, network and PID namespaces + seccomp (no unix sockets without network)") {
		t.Errorf("full = %+v", full)
	}
	part := describe(landlockFeatures{ABI: 5, Net: llNetTCP, FS: (llRead | llWrite) &^ llResolveUnix}, errors.New("user namespaces are not available: operation not permitted"), errors.New("no seccomp filter for riscv64"))
	if part.Full || part.Namespaces {
		t.Errorf("without namespaces the sandbox claims to be full: %+v", part)
	}
	for _, want := range []string{"partial: Landlock ABI 5", "operation not permitted", "only TCP blocked, UDP open", "can outlive the call", "path-named sockets reachable (no seccomp filter for riscv64)", "abstract sockets and signals not scoped"} {
		if !strings.Contains(part.Summary, want) {
			t.Errorf("summary %q lacks %q", part.Summary, want)
		}
	}
	noSeccomp := describe(landlockFeatures{ABI: 7, Net: llNetTCP, Scoped: llScope, FS: llRead | llWrite}, nil, errors.New("no seccomp filter for riscv64"))
	if noSeccomp.Full || !strings.Contains(noSeccomp.Summary, "path-named sockets outside /tmp and /run reachable (no seccomp filter for riscv64)") {
		t.Errorf("namespaces without the socket filter: %+v", noSeccomp)
	}
}

// TestSandboxMountFailureFallsBack: where the helper cannot make its
// mounts, nothing of the command runs there; it runs again under split
// grants, and from then on the sandbox says it is partial.
func TestSandboxMountFailureFallsBack(t *testing.T) {
	needsNamespaces(t)
	c := newSandboxCase(t)
	writeTestFile(t, filepath.Join(c.root, ".catbuddy", "secret"), "state-secret")
	mountTestFailure = filepath.Join(c.root, "keep.txt")
	t.Cleanup(func() { mountTestFailure = ""; mountsBroken.Store(false) })
	out := c.run(`echo ran >> "$TMPDIR/count"; cat "$TMPDIR/count"; echo x > keep.txt; d=.catbudd; cat ${d}y/secret`, Policy{})
	if strings.Contains(out, mountsFailed) || strings.Count(out, "ran\n") != 1 || strings.Contains(out, "state-secret") {
		t.Errorf("fallback run: %q", out)
	}
	c.fileIs("keep.txt", "keep")
	if info := Probe(); info.Full || !strings.Contains(info.Summary, "the private mounts failed") {
		t.Errorf("after a mount failure the sandbox reports %+v", info)
	}
}

// TestSandboxKeepRemovedBeforeStart: a directory the plan kept under
// the private /tmp and that is gone when the helper mounts (a writable
// dir removed meanwhile) is no mount failure: the command runs in its
// namespaces, and later commands keep them.
func TestSandboxKeepRemovedBeforeStart(t *testing.T) {
	needsNamespaces(t)
	// A failure here must not leave the tests after it without namespaces.
	t.Cleanup(func() { mountsBroken.Store(false) })
	c := newSandboxCase(t)
	gone := t.TempDir()
	r, err := Prepare(Request{
		Roots: c.roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{"/bin/sh", "-c", "echo ran"},
		WritableDirs: []string{gone},
		Environ: func(set map[string]string) []string {
			env, _ := shell.Environ(os.Environ(), nil, set)
			return env
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	out := shell.NewOutput(30000)
	res, err := shell.Run(t.Context(), r.Cmd, out, 30*time.Second, 200*time.Millisecond)
	r.Cleanup()
	if err != nil {
		t.Fatal(err)
	}
	if r.MountsFailed(res.ExitCode, out.String()) || res.ExitCode != 0 || !strings.HasPrefix(out.String(), "ran\n") {
		t.Errorf("with a kept directory removed before the start: exit %d, %q", res.ExitCode, out.String())
	}
	if info := Probe(); !info.Full {
		t.Errorf("after the command the sandbox reports %+v", info)
	}
}

// TestSandboxInternalMode: where the root is a sensitive place, only
// .catbuddy/workspace is the agent's; the rest of .catbuddy/ and the
// root stay out of reach.
func TestSandboxInternalMode(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		c := newSandboxCase(t)
		g, err := guard.New([]string{c.root}, guard.ModeInternal)
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(c.root, ".catbuddy", "sessions", "s.jsonl"), "state-secret")
		c.roots, c.workRoot = g.Roots(), g.WorkRoot()
		work := g.WorkRoot()
		run := func(line string, p Policy) string {
			t.Helper()
			return c.runIn(work, line, p)
		}
		run("echo x > scratch.txt", Policy{})
		if _, err := os.Stat(filepath.Join(work, "scratch.txt")); err == nil {
			t.Error("the read-only default wrote into the internal work root")
		}
		out := run("echo x > scratch.txt && cat scratch.txt; echo y > ../../keep.txt; cat ../sessions/s.jsonl", Policy{WriteWorkspace: true})
		if _, err := os.Stat(filepath.Join(work, "scratch.txt")); err != nil {
			t.Errorf("with write access the internal work root is not writable: %q", out)
		}
		c.fileIs("keep.txt", "keep")
		if strings.Contains(out, "state-secret") {
			t.Errorf("the rest of .catbuddy/ was read: %q", out)
		}
	})
}

// TestSandboxGoCacheCopyOnWrite: with namespaces a command's GOCACHE
// shows the user's warm build cache, and what it writes stays its own.
func TestSandboxGoCacheCopyOnWrite(t *testing.T) {
	needsNamespaces(t)
	c := newSandboxCase(t)
	user := filepath.Join(c.home, ".cache", "go-build")
	writeTestFile(t, filepath.Join(user, "ab", "ab12-d"), "warm entry")
	out := c.run(`cat "$GOCACHE/ab/ab12-d"; echo planted > "$GOCACHE/ab/ab12-d"; echo new > "$GOCACHE/new-d" && cat "$GOCACHE/new-d"`, Policy{})
	if !strings.Contains(out, "warm entry") || !strings.Contains(out, "new\n") {
		t.Errorf("GOCACHE is not a writable view of the user's cache: %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(user, "ab", "ab12-d")); string(b) != "warm entry" {
		t.Errorf("the user's build cache changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(user, "new-d")); err == nil {
		t.Error("a command's cache entry reached the user's build cache")
	}
	if _, err := os.Stat(filepath.Join(c.home, ".cache", "catbuddy-exec", "go-build", "new-d")); err == nil {
		t.Error("a command's cache entry outlived its call")
	}
}

func writeTestFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// needsNamespaces ends a test that needs the helper's private
// namespaces where there are none (through testenv, so CI fails).
func needsNamespaces(t *testing.T) {
	t.Helper()
	err := namespacesErr()
	testenv.NeedsSandbox(t, err == nil, "user namespaces", fmt.Sprint(err))
}

// needsSocketFilter ends a test of the seccomp filter against unix
// sockets where there is none; the sandbox's summary says so then.
func needsSocketFilter(t *testing.T) {
	t.Helper()
	testenv.NeedsSandbox(t, socketsErr == nil, "unix-socket filter (seccomp)", fmt.Sprintf("%v; %s", socketsErr, Probe().Summary))
}

// TestNamespaceProbeRetries: the namespace probe's answer holds for the
// server's life, so a start that fails a few times (a loaded machine out
// of processes for a moment) is tried again, and only four failures in
// a row count; the waits between tries grow.
func TestNamespaceProbeRetries(t *testing.T) {
	transient := errors.New("fork/exec /bin/true: resource temporarily unavailable")
	for _, tc := range []struct {
		fails     int
		wantErr   bool
		wantTries int
		wantWaits []time.Duration
	}{
		{fails: 0, wantTries: 1},
		{fails: 3, wantTries: 4, wantWaits: []time.Duration{10 * time.Millisecond, 40 * time.Millisecond, 160 * time.Millisecond}},
		{fails: 10, wantErr: true, wantTries: 4, wantWaits: []time.Duration{10 * time.Millisecond, 40 * time.Millisecond, 160 * time.Millisecond}},
	} {
		tries := 0
		var waits []time.Duration
		err := retryStart(func() error {
			tries++
			if tries <= tc.fails {
				return transient
			}
			return nil
		}, func(d time.Duration) { waits = append(waits, d) })
		if (err != nil) != tc.wantErr || tries != tc.wantTries || !slices.Equal(waits, tc.wantWaits) {
			t.Errorf("%d failures: err %v after %d tries, waits %v; want error %v after %d tries, waits %v",
				tc.fails, err, tries, waits, tc.wantErr, tc.wantTries, tc.wantWaits)
		}
	}
}
