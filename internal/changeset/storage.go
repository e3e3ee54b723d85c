package changeset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
)

// RunsDir is where, below a workspace folder, the runs' change sets
// live: <folder>/.catbuddy/runs/<runId>/. The PathGuard denies the
// agent everything under .catbuddy/, and the sandbox hides it from
// commands, so the layer's storage is out of the agent's reach.
const RunsDir = guard.StateDir + "/runs"

// manifestName is the set's small description in each folder's run
// directory; baseDir holds the base texts, mirroring the folder's paths.
const (
	manifestName = "manifest.json"
	baseDir      = "base"
)

// manifest is what a Set keeps beside its layer in one folder. It is
// rewritten whole (a temporary file renamed over it) after each change,
// so a crash leaves the old one or the new one, never half of either.
type manifest struct {
	RunID   string    `json:"runId"`
	Title   string    `json:"title"`
	Started time.Time `json:"started"`
	// Files are the folder's files the run touched, by path relative to
	// the folder.
	Files map[string]*fileRecord `json:"files,omitempty"`
	// News is what the user kept or discarded that the agent has not
	// been told yet (only the first folder's counts).
	News []string `json:"news,omitempty"`
}

// fileRecord is one touched file: whether it existed before the run
// (its base text is then base/<path>), and whether it was only an
// unsaved buffer put in the layer for a command (materialised: not the
// run's change unless the command changed it).
type fileRecord struct {
	Existed      bool `json:"existed"`
	Materialised bool `json:"materialised,omitempty"`
	// Lower: the base text is the folder's file itself, never written
	// by the layer (a command's deletion, an ignored output): not copied.
	Lower bool `json:"lower,omitempty"`
}

// folder is one workspace folder's part of a set: its layer, its run
// directory and the files the run touched there.
type folder struct {
	root  string // the folder (the layer's lower), a real absolute path
	dir   string // <root>/.catbuddy/runs/<runId>
	layer sandbox.OverlayLayer
	files map[string]*fileRecord
}

// newFolder describes root's part of run id; nothing is created yet.
func newFolder(root, id string) *folder {
	dir := filepath.Join(root, filepath.FromSlash(RunsDir), id)
	return &folder{root: root, dir: dir, files: map[string]*fileRecord{},
		layer: sandbox.OverlayLayer{Lower: root, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}}
}

// ensure creates the run directory (0700, through no symlink: see
// guard.OpenStateDir) and the layer's upper directory.
func (f *folder) ensure() error {
	r, err := guard.OpenStateDir(f.root, "runs", filepath.Base(f.dir))
	if err != nil {
		return fmt.Errorf("run directory in %s: %w", f.root, err)
	}
	defer r.Close()
	if err := r.Mkdir("upper", 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("layer of %s: %w", f.root, err)
	}
	return nil
}

// save writes the manifest of this folder.
func (f *folder) save(m manifest) error {
	if err := f.ensure(); err != nil {
		return err
	}
	m.Files = f.files
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(f.dir, manifestName), b, 0o600)
}

// loadFolder reads root's part of run id, if it has one.
func loadFolder(root, id string) (*folder, manifest, error) {
	f := newFolder(root, id)
	b, err := os.ReadFile(filepath.Join(f.dir, manifestName))
	if err != nil {
		return nil, manifest{}, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, manifest{}, fmt.Errorf("%s: %w", filepath.Join(f.dir, manifestName), err)
	}
	if m.Files != nil {
		f.files = m.Files
	}
	return f, m, nil
}

// basePath is where rel's base text is kept.
func (f *folder) basePath(rel string) string {
	return filepath.Join(f.dir, baseDir, filepath.FromSlash(rel))
}

// readBase returns rel's base text: empty for a file the run created.
func (f *folder) readBase(rel string) ([]byte, error) {
	r, ok := f.files[rel]
	if !ok || !r.Existed {
		return nil, nil
	}
	name := f.basePath(rel)
	if r.Lower {
		name = filepath.Join(f.root, filepath.FromSlash(rel))
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("base of %s: %w", rel, err)
	}
	return b, nil
}

// writeBase stores rel's base text.
func (f *folder) writeBase(rel string, content []byte) error {
	if err := f.ensure(); err != nil {
		return err
	}
	p := f.basePath(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return writeAtomic(p, content, 0o600)
}

// dropBase forgets rel: its base text and its record.
func (f *folder) dropBase(rel string) {
	_ = os.Remove(f.basePath(rel))
	delete(f.files, rel)
}

// remove deletes the folder's whole part of the set: layer, bases and
// manifest.
func (f *folder) remove() error {
	return os.RemoveAll(f.dir)
}

// readUpper returns what the layer holds at rel: the pending content,
// its mode, and whether it is there at all.
func (f *folder) readUpper(rel string) ([]byte, fs.FileMode, bool) {
	p := filepath.Join(f.layer.Upper, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, 0, false
	}
	return b, fi.Mode().Perm(), true
}

// statUpper stats rel in the layer.
func (f *folder) statUpper(rel string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(f.layer.Upper, filepath.FromSlash(rel)))
}

// writeAtomic replaces name with data: a temporary file beside it,
// renamed over it, so that a crash of the process (kill -9) leaves one
// or the other. It does not fsync: the page cache outlives the process,
// and only a machine stop could lose the last writes, as it could those
// of the layer itself (overlayfs mounted volatile); an fsync per write
// would cost more than the whole command's scan.
func writeAtomic(name string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+path.Base(filepath.ToSlash(name))+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
