//go:build linux

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// needsOverlay ends a test that needs the copy-on-write layer where
// the system has none (through testenv, so CI fails).
func needsOverlay(t testing.TB) {
	t.Helper()
	info := Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
}

// newLayerCase is a sandbox case whose commands run over a layer kept
// in the workspace's own .catbuddy/, as a run's is.
func newLayerCase(t *testing.T) (*sandboxCase, OverlayLayer) {
	t.Helper()
	needsOverlay(t)
	c := newSandboxCase(t)
	run := filepath.Join(c.root, ".catbuddy", "runs", "r1")
	l := OverlayLayer{Lower: c.root, Upper: filepath.Join(run, "upper"), Work: filepath.Join(run, "work")}
	c.overlay = []OverlayLayer{l}
	// Before the temp dir's own cleanup, which cannot enter overlayfs's
	// work directory (mode 000) unless it runs as root.
	t.Cleanup(func() { l.Remove() })
	return c, l
}

// diskState is every entry of the workspace but the .catbuddy/ ones: its type,
// mode and content, to show that nothing on disk changed.
func diskState(t *testing.T, root string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && d.Name() == ".catbuddy" {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		}
		state[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func sameDisk(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("on disk %s changed: %q, was %q", p, after[p], v)
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("on disk %s appeared: %q", p, v)
		}
	}
}

// scanLines renders the layer's scan as "path change" lines, with the
// symlink target and "mode only" where they apply.
func scanLines(t *testing.T, l OverlayLayer) []string {
	t.Helper()
	entries, err := ScanUpper(l.Upper, l.Lower)
	if err != nil {
		t.Fatalf("scan %s: %v", l.Upper, err)
	}
	var out []string
	for _, e := range entries {
		s := e.Path + " " + e.Change.String()
		if e.Target != "" {
			s += " -> " + e.Target
		}
		if e.ModeOnly {
			s += " (mode only)"
		}
		out = append(out, s)
	}
	return out
}

func scanIs(t *testing.T, l OverlayLayer, want ...string) {
	t.Helper()
	if got := scanLines(t, l); !slices.Equal(got, want) {
		t.Errorf("scan of the layer:\n got  %q\n want %q", got, want)
	}
}

// TestLayerRmRfDeletesNothing: a command that deletes the whole
// workspace over the layer deletes nothing on disk; the layer holds the
// deletions, .git/ and .catbuddy/ cannot be deleted in it.
func TestLayerRmRfDeletesNothing(t *testing.T) {
	c, l := newLayerCase(t)
	writeTestFile(t, filepath.Join(c.root, "src", "deep", "b.go"), "package deep")
	before := diskState(t, c.root)
	out := c.run(`rm -rf ./* .[!.]* 2>/dev/null; cd .. && rm -rf `+filepath.Base(c.root)+` 2>/dev/null; ls -A `+c.root+`; echo listed`, Policy{WriteWorkspace: true})
	if !strings.Contains(out, ".catbuddy\n.git\nlisted") {
		t.Errorf("after rm -rf the merged view should hold only the mount points .catbuddy and .git: %q", out)
	}
	sameDisk(t, before, diskState(t, c.root))
	scanIs(t, l, "keep.txt deleted", "src deleted")
	// The next command over the same layer sees the deletions.
	if out := c.run("ls -A; cat .git/config", Policy{}); !strings.Contains(out, ".catbuddy\n.git\n[core]") {
		t.Errorf("a second command over the layer: %q", out)
	}
}

// TestLayerWritesLandInUpper: what a command creates, changes, deletes,
// links or chmods is in the layer and the scan, not on disk; the next
// command sees it; a directory deleted and made again is opaque.
func TestLayerWritesLandInUpper(t *testing.T) {
	c, l := newLayerCase(t)
	writeTestFile(t, filepath.Join(c.root, "src", "old.go"), "package old")
	before := diskState(t, c.root)
	w := Policy{WriteWorkspace: true}
	out := c.run(`echo changed > keep.txt && echo new > src/new.go && mkdir -p gen/x && echo g > gen/x/g.txt && `+
		`chmod +x src/a.go && ln -s keep.txt link && rm src/old.go && cat keep.txt`, w)
	if !strings.Contains(out, "changed\n[exit code 0]") {
		t.Errorf("the command's own writes: %q", out)
	}
	sameDisk(t, before, diskState(t, c.root))
	scanIs(t, l, "gen created", "gen/x created", "gen/x/g.txt created", "keep.txt changed", "link created -> keep.txt",
		"src/a.go changed (mode only)", "src/new.go created", "src/old.go deleted")
	if b, err := os.ReadFile(filepath.Join(l.Upper, "src", "new.go")); err != nil || string(b) != "new\n" {
		t.Errorf("upper src/new.go = %q, %v", b, err)
	}
	if out := c.run("cat src/new.go gen/x/g.txt; test -e src/old.go || echo old-gone", Policy{}); !strings.Contains(out, "new\ng\nold-gone") {
		t.Errorf("the next command does not see the layer: %q", out)
	}
	// A directory deleted and made again hides the folder's: the scan
	// says so, and lists what the folder's had as deleted.
	c.run("rm -rf src && mkdir src && echo b > src/b.go", w)
	sameDisk(t, before, diskState(t, c.root))
	scanIs(t, l, "gen created", "gen/x created", "gen/x/g.txt created", "keep.txt changed", "link created -> keep.txt",
		"src replaced", "src/a.go deleted", "src/b.go created", "src/old.go deleted")
	if out := c.run("ls src", Policy{}); !strings.Contains(out, "b.go\n[exit code 0]") {
		t.Errorf("the opaque directory shows more than its own: %q", out)
	}
}

// TestLayerGitAndStateUntouched: over the layer .git/ is read-only and
// .catbuddy/ (where the layer itself lives) unreachable, and nothing of
// either reaches the layer or the disk. A command that would write
// .git/ is refused a layer.
func TestLayerGitAndStateUntouched(t *testing.T) {
	c, l := newLayerCase(t)
	writeTestFile(t, filepath.Join(c.root, ".catbuddy", "secret"), "state-secret")
	before := diskState(t, c.root)
	out := c.run(`echo '#!/bin/sh' > .git/hooks/pre-commit; printf '[core]\n\tfsmonitor = evil\n' >> .git/config; rm -rf .git; `+
		`d=.catbudd; cat ${d}y/secret; ls -A ${d}y; echo planted > ${d}y/runs/r1/upper/planted; `+
		`echo planted > `+filepath.Join(l.Upper, "planted2")+`; echo x > ${d}y/new; echo done`, Policy{WriteWorkspace: true})
	if strings.Contains(out, "state-secret") || strings.Contains(out, "runs\n") || !strings.Contains(out, "done") {
		t.Errorf(".catbuddy/ was reached through the layer: %q", out)
	}
	sameDisk(t, before, diskState(t, c.root))
	c.fileIs(".catbuddy/secret", "state-secret")
	for _, p := range []string{"planted", "planted2", ".git"} {
		if _, err := os.Lstat(filepath.Join(l.Upper, p)); err == nil {
			t.Errorf("%s reached the layer's upper directory", p)
		}
	}
	if _, err := os.Lstat(filepath.Join(c.root, ".catbuddy", "new")); err == nil {
		t.Error("a command created .catbuddy/new")
	}
	scanIs(t, l)
	_, err := Prepare(Request{Roots: c.roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{"/bin/true"},
		Policy: Policy{WriteWorkspace: true, WriteGit: true}, Overlay: c.overlay, Environ: setOnly})
	if err == nil || !strings.Contains(err.Error(), ".git/") {
		t.Errorf("a command that writes .git/ got a layer: %v", err)
	}
}

// TestLayerShowsPlacedFiles: what the caller places in the layer
// before a command (pending edits, unsaved buffers, deletions) is what
// the command sees, and a command without the write policy reads the
// merged view but cannot change it.
func TestLayerShowsPlacedFiles(t *testing.T) {
	c, l := newLayerCase(t)
	writeTestFile(t, filepath.Join(c.root, "gone", "g.txt"), "g")
	before := diskState(t, c.root)
	for rel, text := range map[string]string{"src/a.go": "package a // unsaved buffer", "src/sub/new.go": "package sub", "gone/again/h.txt": "h"} {
		if rel == "gone/again/h.txt" {
			if err := l.Delete("gone"); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.WriteFile(rel, []byte(text), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Delete("keep.txt"); err != nil {
		t.Fatal(err)
	}
	out := c.run(`cat src/a.go src/sub/new.go; echo; cat keep.txt 2>&1 | grep -c "No such"; ls gone; stat -c %a src/sub; echo x > src/a.go`, Policy{})
	for _, want := range []string{"package a // unsaved buffer", "package sub", "\n1\n", "again\n", "755\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the merged view lacks %q: %q", want, out)
		}
	}
	sameDisk(t, before, diskState(t, c.root))
	scanIs(t, l, "gone replaced", "gone/again created", "gone/again/h.txt created", "gone/g.txt deleted", "keep.txt deleted",
		"src/a.go changed", "src/sub created", "src/sub/new.go created")
	if b, _ := os.ReadFile(filepath.Join(l.Upper, "src", "a.go")); string(b) != "package a // unsaved buffer" {
		t.Errorf("a command without the write policy changed the layer: %q", b)
	}
	if err := l.Revert("keep.txt"); err != nil {
		t.Fatal(err)
	}
	if out := c.run("cat keep.txt", Policy{}); !strings.Contains(out, "keep[exit code 0]") && !strings.Contains(out, "keep\n[exit code 0]") {
		t.Errorf("a reverted deletion: %q", out)
	}
}

// TestLayerOneCommandAtATime: a second command over a layer in use is
// refused with a clear error, and may run once the first is cleaned up.
func TestLayerOneCommandAtATime(t *testing.T) {
	c, _ := newLayerCase(t)
	req := Request{Roots: c.roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{"/bin/true"}, Policy: Policy{WriteWorkspace: true},
		Overlay: c.overlay, Environ: setOnly}
	first, err := Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(req); err == nil || !strings.Contains(err.Error(), "another command is running over the layer") {
		t.Errorf("a second command over a layer in use: %v", err)
	}
	first.Cleanup()
	third, err := Prepare(req)
	if err != nil {
		t.Fatalf("after Cleanup: %v", err)
	}
	third.Cleanup()
}

// TestLayerRefusesBadPlaces: layers the kernel would refuse, or whose
// directories a command could reach, and a workspace folder without a
// layer, are refused before anything runs.
func TestLayerRefusesBadPlaces(t *testing.T) {
	c, l := newLayerCase(t)
	other := t.TempDir()
	for name, layers := range map[string][]OverlayLayer{
		"upper in the folder":  {{Lower: l.Lower, Upper: filepath.Join(c.root, "upper"), Work: l.Work}},
		"folder inside upper":  {{Lower: l.Lower, Upper: filepath.Dir(c.root), Work: l.Work}},
		"not a folder":         {{Lower: other, Upper: l.Upper, Work: l.Work}},
		"work inside upper":    {{Lower: l.Lower, Upper: l.Upper, Work: filepath.Join(l.Upper, "w")}},
		"relative upper":       {{Lower: l.Lower, Upper: "upper", Work: l.Work}},
		"a second root lacks":  {l},
		"two layers of a root": {l, l},
	} {
		roots := c.roots
		if name == "a second root lacks" {
			roots = append(slices.Clone(roots), other)
		}
		r, err := Prepare(Request{Roots: roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{"/bin/true"},
			Policy: Policy{WriteWorkspace: true}, Overlay: layers, Environ: setOnly})
		if err == nil {
			r.Cleanup()
			t.Errorf("%s: prepared", name)
		} else if errors.Is(err, ErrNoOverlay) {
			t.Errorf("%s: reported as a system without the layer: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(c.root, "upper")); err == nil {
		t.Error("a refused layer made its upper directory in the workspace")
	}
}

// TestLayerFallbackReported: where the private mounts are missing the
// layer is reported unavailable in a sentence, and a request for one
// fails with ErrNoOverlay; a layer that cannot be mounted at run time
// stops the command before it runs, and says so.
func TestLayerFallbackReported(t *testing.T) {
	c, l := newLayerCase(t)
	if info := Probe(); !info.Overlay || info.OverlayReason != "" {
		t.Errorf("with the layer working, Probe says %+v", info)
	}
	req := Request{Roots: c.roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{"/bin/true"}, Policy: Policy{WriteWorkspace: true},
		Overlay: c.overlay, Environ: setOnly}
	for name, set := range map[string]func(bool){
		"split grants":  ForceSplitGrants,
		"broken mounts": func(on bool) { mountsBroken.Store(on) },
	} {
		set(true)
		info := Probe()
		_, err := Prepare(req)
		set(false)
		if info.Overlay || !strings.HasPrefix(info.OverlayReason, "The copy-on-write layer needs") || !strings.HasSuffix(info.OverlayReason, ".") {
			t.Errorf("%s: Probe says %+v", name, info)
		}
		if !errors.Is(err, ErrNoOverlay) || !strings.Contains(err.Error(), info.OverlayReason) {
			t.Errorf("%s: Prepare: %v", name, err)
		}
	}
	// The work directory vanishes between Prepare and the start: the
	// helper cannot mount the layer, and the command does not run.
	r, err := Prepare(Request{Roots: c.roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{"/bin/sh", "-c", "echo ran > ran.txt"},
		Policy: Policy{WriteWorkspace: true}, Overlay: c.overlay, Environ: setOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Cleanup()
	if err := removeTree(l.Work); err != nil {
		t.Fatal(err)
	}
	out, err := r.Cmd.CombinedOutput()
	code := r.Cmd.ProcessState.ExitCode()
	if !r.LayerFailed(code, string(out)) || r.MountsFailed(code, string(out)) || !strings.Contains(string(out), l.Work) {
		t.Errorf("a layer that cannot be mounted: exit %d, %v: %q", code, err, out)
	}
	for _, p := range []string{filepath.Join(c.root, "ran.txt"), filepath.Join(l.Upper, "ran.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the command ran without its layer: %s exists", p)
		}
	}
}

func TestKernelHint(t *testing.T) {
	if h := kernelHint(errors.New("no such file")); h != "" {
		t.Errorf("hint for an error other than EINVAL: %q", h)
	}
	if major, minor, ok := kernelVersion(); !ok || major < 2 {
		t.Errorf("kernel version %d.%d, %v", major, minor, ok)
	}
}

// setOnly is an environment of the sandbox's own variables alone.
func setOnly(set map[string]string) []string {
	var env []string
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// TestLayerInterrupted: the layer is volatile, and overlayfs marks it
// while mounted. A command whose server died before cleaning up leaves
// the mark: in the same boot nothing was lost and the next command runs;
// after a restart of the machine Prepare refuses the layer until the
// caller clears the mark.
func TestLayerInterrupted(t *testing.T) {
	c, l := newLayerCase(t)
	mark := filepath.Join(l.Work, volatileMark)
	// A server that dies after the command: no Cleanup, the mark stays.
	r := c.prepare(c.root, "echo before > before.txt", Policy{WriteWorkspace: true})
	if out, err := r.Cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	unlockLayers(r.locks) // its lock dies with it
	openWorkDir(l)
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("overlayfs left no mark of the volatile layer: %v", err)
	}
	if out := c.run("cat before.txt", Policy{}); !strings.Contains(out, "before\n[exit code 0]") {
		t.Errorf("after a dead server, in the same boot: %q", out)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("Cleanup left the mark")
	}
	// The machine stopped during a command: another boot noted.
	if err := os.MkdirAll(filepath.Join(mark, "volatile"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Work, bootFile), []byte("another boot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Prepare(Request{Roots: c.roots, WorkRoot: c.workRoot, Dir: c.root, Argv: []string{"/bin/true"},
		Policy: Policy{WriteWorkspace: true}, Overlay: c.overlay, Environ: setOnly})
	if !errors.Is(err, ErrLayerInterrupted) || !strings.Contains(err.Error(), "may be incomplete") {
		t.Fatalf("a layer interrupted by a stopped machine: %v", err)
	}
	if err := l.ClearInterrupted(); err != nil {
		t.Fatal(err)
	}
	if out := c.run("cat before.txt", Policy{}); !strings.Contains(out, "before\n[exit code 0]") {
		t.Errorf("after the mark was cleared: %q", out)
	}
}

// TestLayerNestedFolders: a workspace folder inside another gets a
// layer of its own, kept in its own .catbuddy/; a command's writes land
// in the layer of the folder they are in, and nothing on disk changes.
func TestLayerNestedFolders(t *testing.T) {
	c, outer := newLayerCase(t)
	sub := filepath.Join(c.root, "sub")
	writeTestFile(t, filepath.Join(sub, "inner.txt"), "inner")
	inner := OverlayLayer{Lower: sub, Upper: filepath.Join(sub, ".catbuddy", "runs", "r1", "upper"), Work: filepath.Join(sub, ".catbuddy", "runs", "r1", "work")}
	c.roots = append(c.roots, sub)
	c.overlay = append(c.overlay, inner)
	t.Cleanup(func() { inner.Remove() })
	before := diskState(t, c.root)
	out := c.run("echo o > keep.txt && echo i > sub/inner.txt && echo n > sub/new.txt && cat sub/inner.txt", Policy{WriteWorkspace: true})
	if !strings.Contains(out, "i\n[exit code 0]") {
		t.Fatalf("a command over nested layers: %q", out)
	}
	sameDisk(t, before, diskState(t, c.root))
	scanIs(t, outer, "keep.txt changed")
	scanIs(t, inner, "inner.txt changed", "new.txt created")
}
