package changeset

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

// runsDir is where, in a workspace folder's place in the user's state
// directory (userstate.Folder), the runs' change sets live:
// <state>/folders/<key>/runs/<runId>/. Nothing of a set lies in the
// project: a cloned project cannot plant one, and the project's own
// tools never see cb-ls's files. The sandbox hides the state directory
// from commands (Request.UserDirs), so the layer's storage is out of
// the agent's reach.
const runsDir = "runs"

// manifestName is the set's small description in each folder's run
// directory; baseDir holds the base texts, mirroring the folder's paths.
const (
	manifestName = "manifest.json"
	baseDir      = "base"
	upperDir     = "upper"
	workDir      = "work"
)

// maxManifest bounds a manifest's read: about 200 bytes a file, for a
// million files. A larger one is not cb-ls's.
const maxManifest = 256 << 20

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
	// Base, for a Lower record, is what the folder held when the run
	// first touched the file (lower_base.go): a keep leaves the file
	// pending when the user changed it since.
	Base *lowerBase `json:"base,omitempty"`
}

// folder is one workspace folder's part of a set: its layer, its run
// directory and the files the run touched there.
type folder struct {
	root  string           // the folder (the layer's lower), a real absolute path
	state userstate.Folder // the folder's place in the state directory
	id    string           // the run
	dir   string           // <state>/folders/<key>/runs/<runId>, for messages and the layer
	layer sandbox.OverlayLayer
	files map[string]*fileRecord
	// run is the run directory, opened once (ensure): every read and
	// write of the set's own files goes through it, never by path.
	run *os.Root
	// stamp is the manifest's as this process last wrote or read it
	// (oplock.go: another process may have written it since).
	stamp stamp
	// trees are the directories a listing keeps open (side.go).
	trees map[string]*safefile.Tree
}

// newFolder describes root's part of run id; nothing is created yet.
func newFolder(st userstate.Folder, id string) *folder {
	dir := st.Path(runsDir, id)
	return &folder{root: st.Root, state: st, id: id, dir: dir, files: map[string]*fileRecord{},
		layer: sandbox.OverlayLayer{Lower: st.Root, Upper: filepath.Join(dir, upperDir), Work: filepath.Join(dir, workDir)}}
}

// ensure opens the run directory (made 0700, through no symlink: see
// userstate.Folder.Open) and creates the layer's upper directory.
func (f *folder) ensure() error {
	if f.run != nil {
		return nil
	}
	r, err := f.state.Open(runsDir, f.id)
	if err != nil {
		return fmt.Errorf("run directory of %s: %w", f.root, err)
	}
	if err := r.Mkdir(upperDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		r.Close()
		return fmt.Errorf("layer of %s: %w", f.root, err)
	}
	f.run = r
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
	if err := writeAtomic(f.run, manifestName, b, 0o600); err != nil {
		return err
	}
	f.stamp = f.manifestStamp()
	return nil
}

// loadFolder reads st's part of run id, if it has one. A record whose
// path is not a plain path inside the folder is dropped: the manifest
// is cb-ls's own, but nothing it says may lead a keep or a discard out
// of the folder.
func loadFolder(st userstate.Folder, id string) (*folder, manifest, []string, error) {
	f := newFolder(st, id)
	if err := f.ensure(); err != nil {
		return nil, manifest{}, nil, err
	}
	f.stamp = f.manifestStamp()
	b, err := userstate.ReadFile(f.run, manifestName, maxManifest)
	if err != nil {
		f.close()
		return nil, manifest{}, nil, err
	}
	m, dropped, err := parseManifest(b)
	if err != nil {
		f.close()
		return nil, manifest{}, nil, fmt.Errorf("%s: %w", filepath.Join(f.dir, manifestName), err)
	}
	if m.Files != nil {
		f.files = m.Files
	}
	return f, m, dropped, nil
}

// parseManifest decodes a manifest, dropping (and returning) the
// records whose path is not a plain path inside the folder.
func parseManifest(b []byte) (manifest, []string, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return manifest{}, nil, err
	}
	var dropped []string
	for rel, rec := range m.Files {
		if rec == nil || !localRel(rel) {
			dropped = append(dropped, rel)
			delete(m.Files, rel)
		}
	}
	return m, dropped, nil
}

// localRel reports whether rel is a clean slash-separated path inside a
// folder: not empty, not absolute, no "..", no "." or empty component.
func localRel(rel string) bool {
	if rel == "" || strings.ContainsRune(rel, 0) || strings.Contains(rel, `\`) {
		return false
	}
	return path.Clean(rel) == rel && filepath.IsLocal(filepath.FromSlash(rel)) && rel != "."
}

// basePath is rel's base text in the run directory.
func basePath(rel string) string {
	return path.Join(baseDir, rel)
}

// writeBase stores rel's base text.
func (f *folder) writeBase(rel string, content []byte) error {
	if !localRel(rel) {
		return fmt.Errorf("base of %q: not a path inside the folder", rel)
	}
	if err := f.ensure(); err != nil {
		return err
	}
	p := filepath.FromSlash(basePath(rel))
	if err := f.run.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("base of %s: %w", rel, err)
	}
	return writeAtomic(f.run, p, content, 0o600)
}

// dropBase forgets rel: its base text and its record.
func (f *folder) dropBase(rel string) {
	if f.run != nil && localRel(rel) {
		_ = f.run.Remove(filepath.FromSlash(basePath(rel)))
	}
	delete(f.files, rel)
}

// close lets go of the run directory.
func (f *folder) close() {
	if f.run != nil {
		f.run.Close()
		f.run = nil
	}
}

// remove deletes the folder's whole part of the set: layer, bases and
// manifest, through the runs directory, by descriptor.
func (f *folder) remove() error {
	f.close()
	// The layer first: overlayfs leaves its work directory unreadable
	// (mode 000), which RemoveAll cannot enter as an ordinary user.
	err := f.layer.Remove()
	runs, oerr := f.state.Open(runsDir)
	if oerr != nil {
		return errors.Join(err, oerr)
	}
	defer runs.Close()
	return errors.Join(err, runs.RemoveAll(f.id))
}

// statUpper stats rel in the layer.
func (f *folder) statUpper(rel string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(f.layer.Upper, filepath.FromSlash(rel)))
}

// writeAtomic replaces name in dir with data: a temporary file beside
// it, renamed over it, so that a crash of the process (kill -9) leaves
// one or the other. It does not fsync: the page cache outlives the
// process, and only a machine stop could lose the last writes, as it
// could those of the layer itself (overlayfs mounted volatile); an
// fsync per write would cost more than the whole command's scan.
func writeAtomic(dir *os.Root, name string, data []byte, perm fs.FileMode) error {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmp, name)
	}
	if err != nil {
		_ = dir.Remove(tmp)
	}
	return err
}
