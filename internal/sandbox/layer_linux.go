package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// The copy-on-write layer (Request.Overlay). The helper mounts, in its
// private mount namespace, one overlayfs per workspace folder over the
// folder itself: lowerdir the folder, upperdir and workdir the run's
// own. Unprivileged, in a user namespace, that needs the userxattr
// option (Linux 5.11): overlayfs then keeps its opaque-directory marks
// in user.overlay.* attributes, and the features that would need
// trusted.* ones (redirect_dir, metacopy, index) stay off, so a renamed
// directory is copied, and every changed file is whole in Upper.
//
// Order matters: an overlay does not show the mounts beneath its lower
// directory, so each layer is mounted before anything inside its folder
// is hidden (.catbuddy/, a secret directory) or made read-only (.git/,
// the whole folder without the write policy), and those mounts are then
// made over the merged view. The layer's own directories are opened
// before the first mount and handed to overlayfs as /proc/self/fd/N:
// they usually lie in a hidden place (the folder's .catbuddy/, the
// private /tmp), and the command never sees them. Through the merged
// view the kernel answers ELOOP for an upper or work directory inside
// its own lower, and .catbuddy/ is hidden there anyway.
//
// The layer is volatile: overlayfs then skips, at every teardown, the
// sync of the whole filesystem the upper directory lies on, which on a
// busy disk cost as much again as the rest of the layer (see
// docs/exec-web-mcp.md). What a command wrote is in the page cache, so
// it survives the server's or the editor's crash; only a crash of the
// machine during a command can lose part of it. overlayfs marks a
// volatile layer (work/incompat/volatile) until it is cleanly taken
// down, and refuses to mount it again while marked: Cleanup removes the
// mark, and Prepare tells a mark left by a dead server (the same boot:
// nothing lost) from one left by a machine that stopped (another boot:
// ErrLayerInterrupted).
//
// Teardown is the namespace's: the overlay lives only in the helper's
// mount namespace, which dies with the PID namespace's last process.
// When the command ends, times out or is cancelled, the kernel kills
// whatever is left in the PID namespace and the mounts go with it
// before the server's wait returns; nothing is left to unmount.

// layerFailed starts the helper's message when a layer could not be
// mounted; nothing of the command ran then (see LayerFailed).
const layerFailed = "cb-ls sandbox: the copy-on-write layer could not be mounted"

// LayerFailed reports whether the helper of this run could not mount a
// copy-on-write layer, judging by its exit code and output. Nothing of
// the command ran; the output says which folder and why. Unlike
// MountsFailed there is no retry without the layer: the command must
// never run against a view that lacks the run's pending changes.
func (s *Run) LayerFailed(exitCode int, output string) bool {
	return s.namespaced && len(s.layers) > 0 && exitCode == mountsFailedCode && strings.HasPrefix(output, layerFailed)
}

// layerError is a layer the helper could not open or mount.
type layerError struct {
	lower string
	err   error
}

func (e *layerError) Error() string {
	return fmt.Sprintf("%s (for %s): %v%s", layerFailed, e.lower, e.err, kernelHint(e.err))
}

// kernelHint explains EINVAL on kernels that do not know userxattr.
func kernelHint(err error) string {
	if !errors.Is(err, unix.EINVAL) {
		return ""
	}
	if major, minor, ok := kernelVersion(); ok && (major < 5 || major == 5 && minor < 11) {
		return fmt.Sprintf("; overlayfs in a user namespace needs Linux 5.11 or later, this is %d.%d", major, minor)
	}
	return "; the filesystem of the upper directory may lack user extended attributes"
}

// kernelVersion is the running kernel's major and minor version.
func kernelVersion() (major, minor int, ok bool) {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return 0, 0, false
	}
	n, _ := fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor)
	return major, minor, n == 2
}

// layerFDs are the layers' directories, opened in the helper before any
// mount, three per layer: lower, upper, work.
type layerFDs struct {
	layers []OverlayLayer
	fds    []int
}

func openLayers(layers []OverlayLayer) (*layerFDs, error) {
	l := &layerFDs{layers: layers}
	for _, layer := range layers {
		for _, dir := range []string{layer.Lower, layer.Upper, layer.Work} {
			fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				l.close()
				return nil, &layerError{lower: layer.Lower, err: fmt.Errorf("open %s: %w", dir, err)}
			}
			l.fds = append(l.fds, fd)
		}
	}
	return l, nil
}

func (l *layerFDs) close() {
	for _, fd := range l.fds {
		unix.Close(fd)
	}
}

// mount mounts layer i over its folder.
func (l *layerFDs) mount(i int) error {
	fd := l.fds[3*i:]
	opts := fmt.Sprintf("lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,workdir=/proc/self/fd/%d,userxattr,volatile", fd[0], fd[1], fd[2])
	return unix.Mount("overlay", l.layers[i].Lower, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts)
}

// planLayers checks r's layers against the plan, readies their
// directories and takes each one's lock, and returns them with real
// paths. Only folders the command could write are layered; every one of
// them must be.
func planLayers(r Request, in planInput) ([]OverlayLayer, []*os.File, error) {
	if r.Policy.WriteGit {
		return nil, nil, errors.New("a command that writes .git/ cannot run over the copy-on-write layer: .git/ stays read-only there")
	}
	var need []string // the folders a command could write
	if in.internal() {
		need = []string{realOr(in.WorkRoot)}
	} else {
		need = existingReal(in.Roots)
	}
	var out []OverlayLayer
	var locks []*os.File
	fail := func(err error) ([]OverlayLayer, []*os.File, error) {
		unlockLayers(locks)
		return nil, nil, err
	}
	for _, l := range r.Overlay {
		lower, err := filepath.EvalSymlinks(l.Lower)
		if err != nil {
			return fail(fmt.Errorf("the layer's folder: %v", err))
		}
		if fi, err := os.Stat(lower); err != nil || !fi.IsDir() {
			return fail(fmt.Errorf("the layer's folder %s is not a directory", l.Lower))
		}
		if !slices.Contains(need, lower) {
			return fail(fmt.Errorf("the layer's folder %s is not a workspace folder", l.Lower))
		}
		for _, o := range out {
			if o.Lower == lower {
				return fail(fmt.Errorf("two layers for %s", l.Lower))
			}
		}
		if !filepath.IsAbs(l.Upper) || !filepath.IsAbs(l.Work) {
			return fail(fmt.Errorf("the layer of %s needs absolute upper and work directories", l.Lower))
		}
		// Checked before they are made, and again once they exist and
		// their real paths are known.
		layer := OverlayLayer{Lower: lower, Upper: realOr(l.Upper), Work: realOr(l.Work)}
		if err := checkLayerPlaces(layer, need); err != nil {
			return fail(err)
		}
		for _, d := range []string{l.Upper, l.Work} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return fail(fmt.Errorf("the layer's directory: %v", err))
			}
		}
		layer.Upper, layer.Work = realOr(l.Upper), realOr(l.Work)
		if err := checkLayerPlaces(layer, need); err != nil {
			return fail(err)
		}
		// The merged root takes the upper directory's mode: keep the
		// folder's, so the command sees no difference.
		if fi, err := os.Stat(lower); err == nil {
			_ = os.Chmod(layer.Upper, fi.Mode().Perm())
		}
		lock, err := lockLayer(layer)
		if err != nil {
			return fail(err)
		}
		locks = append(locks, lock)
		if err := checkInterrupted(layer); err != nil {
			return fail(err)
		}
		out = append(out, layer)
	}
	for _, n := range need {
		if !slices.Contains(lowers(out), n) {
			return fail(fmt.Errorf("the workspace folder %s has no layer: a command would write it directly", n))
		}
	}
	return out, locks, nil
}

// checkLayerPlaces refuses upper and work directories the kernel would
// refuse, or that the command could reach through a folder it sees.
func checkLayerPlaces(l OverlayLayer, folders []string) error {
	if isUnder(l.Upper, l.Work) || isUnder(l.Work, l.Upper) {
		return fmt.Errorf("the layer of %s: upper and work directories must not contain each other", l.Lower)
	}
	var stateDirs []string
	for _, f := range folders {
		stateDirs = append(stateDirs, filepath.Join(f, guard.StateDir))
	}
	for _, d := range []string{l.Upper, l.Work} {
		if isUnder(l.Lower, d) {
			return fmt.Errorf("the layer of %s: its folder lies inside %s", l.Lower, d)
		}
		if underAny(d, stateDirs) {
			continue // hidden from the command, nested folders' too
		}
		for _, f := range folders {
			if isUnder(d, f) {
				return fmt.Errorf("the layer of %s: %s lies in the workspace folder %s outside its %s/", l.Lower, d, f, guard.StateDir)
			}
		}
	}
	var up, wk unix.Stat_t
	if unix.Stat(l.Upper, &up) == nil && unix.Stat(l.Work, &wk) == nil && up.Dev != wk.Dev {
		return fmt.Errorf("the layer of %s: upper and work directories must be on one filesystem", l.Lower)
	}
	return nil
}

// lockLayer takes the layer's lock for one command: two commands over
// one upper directory at once are undefined behaviour in overlayfs. The
// lock is an flock on the work directory, held until Cleanup.
func lockLayer(l OverlayLayer) (*os.File, error) {
	f, err := os.Open(l.Work)
	if err != nil {
		return nil, fmt.Errorf("the layer's work directory: %v", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("another command is running over the layer of %s; one at a time", l.Lower)
		}
		return nil, fmt.Errorf("lock the layer of %s: %v", l.Lower, err)
	}
	return f, nil
}

func unlockLayers(locks []*os.File) {
	for _, f := range locks {
		f.Close() // closing the only descriptor releases the flock
	}
}

func lowers(layers []OverlayLayer) []string {
	var out []string
	for _, l := range layers {
		out = append(out, l.Lower)
	}
	return out
}

// hideLayers covers the layers' directories that no other mount hides,
// so the command cannot change a layer behind overlayfs's back.
func hideLayers(m *nsMounts) {
	covered := append(append([]string{}, m.Private...), m.Hide...)
	for _, l := range m.Layers {
		for _, d := range []string{l.Upper, l.Work} {
			if !underAny(d, covered) {
				m.Hide = append(m.Hide, d)
			}
		}
	}
}

// volatileMark is where overlayfs marks a mounted volatile layer, under
// its work directory; bootFile is where Prepare notes the boot it
// mounts the layer in.
const (
	volatileMark = "work/incompat"
	bootFile     = "cb-ls-boot-id"
)

// checkInterrupted looks for the mark of a command that was not cleaned
// up after: in this boot the server died and nothing was lost, so the
// mark goes; after a restart of the machine, what the command wrote may
// be incomplete, and the caller must decide (ErrLayerInterrupted). It
// then notes this boot for the command about to run.
func checkInterrupted(l OverlayLayer) error {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	openWorkDir(l)
	mark := filepath.Join(l.Work, volatileMark)
	if _, err := os.Lstat(mark); err == nil {
		if noted, err := os.ReadFile(filepath.Join(l.Work, bootFile)); err != nil || len(boot) == 0 || string(noted) != string(boot) {
			return fmt.Errorf("%w: the system stopped while a command ran over the layer of %s, so what that command wrote may be incomplete; review the run's changes, then clear the mark (OverlayLayer.ClearInterrupted) to run commands over it again", ErrLayerInterrupted, l.Lower)
		}
		if err := removeTree(mark); err != nil {
			return fmt.Errorf("the layer of %s: %v", l.Lower, err)
		}
	}
	if err := os.WriteFile(filepath.Join(l.Work, bootFile), boot, 0o600); err != nil {
		return fmt.Errorf("the layer of %s: %v", l.Lower, err)
	}
	return nil
}

// ClearInterrupted accepts a layer that a stopped machine left marked
// (ErrLayerInterrupted): commands may run over it again.
func (l OverlayLayer) ClearInterrupted() error {
	openWorkDir(l)
	return removeTree(filepath.Join(l.Work, volatileMark))
}

// openWorkDir lets the user reach into overlayfs's work directory,
// which it leaves mode 000: only root could look for the mark there.
// overlayfs empties and remakes it at every mount anyway.
func openWorkDir(l OverlayLayer) {
	_ = os.Chmod(filepath.Join(l.Work, "work"), 0o700)
}

// clearMarks removes the marks of a run's layers once its command has
// ended: the namespace, and with it the mount, is gone by then.
func clearMarks(layers []OverlayLayer) {
	for _, l := range layers {
		openWorkDir(l)
		if err := removeTree(filepath.Join(l.Work, volatileMark)); err != nil {
			fmt.Fprintf(os.Stderr, "cb-ls: clear the layer's mark: %v\n", err)
		}
	}
}
