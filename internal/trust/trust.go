// Package trust keeps the user's decisions about which projects may apply
// the settings that need trust: a project's MCP servers, its provider and
// endpoint, settings that loosen a guard. Decisions live in the user's
// state directory ($XDG_STATE_HOME/catbuddy/trust.json), never in the
// project, and are keyed by the project's real path and a hash of its
// .catbuddy configuration files: a changed file asks again. It imports
// only userdir.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/userdir"
)

// ConfigFiles are the project files a decision covers, relative to the
// project root.
var ConfigFiles = []string{".catbuddy/config.json", ".catbuddy/mcp.json"}

// Project identifies one state of a project's configuration.
type Project struct {
	// Root is the project's real path (symlinks resolved).
	Root string
	// Hash covers the content (or absence) of every ConfigFiles entry.
	Hash string
	// HasConfig is false when none of ConfigFiles exists: nothing to trust.
	HasConfig bool
}

// Identify returns root's identity as it is now.
func Identify(root string) (Project, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Project{}, fmt.Errorf("trust: project %s: %w", root, err)
	}
	h := sha256.New()
	p := Project{Root: real}
	for _, rel := range ConfigFiles {
		data, err := os.ReadFile(filepath.Join(real, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "%s absent\x00", rel)
			continue
		case err != nil:
			return Project{}, fmt.Errorf("trust: read %s: %w", filepath.Join(real, rel), err)
		}
		p.HasConfig = true
		fmt.Fprintf(h, "%s %d\x00", rel, len(data))
		h.Write(data)
	}
	p.Hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// Store is a trust.json file.
type Store struct {
	// Path is the file; "" means decisions are not kept (nothing is trusted).
	Path string
}

// DefaultStore is trust.json in the user's state directory.
func DefaultStore() Store {
	dir := userdir.State(os.Getenv)
	if dir == "" {
		return Store{}
	}
	return Store{Path: filepath.Join(dir, "trust.json")}
}

type entry struct {
	Hash    string    `json:"hash"`
	Trusted time.Time `json:"trusted"`
}

type file struct {
	Projects map[string]entry `json:"projects"`
}

// mu serialises this process's read-modify-write cycles; the rename
// keeps the file whole for other processes.
var mu sync.Mutex

func (s Store) read() (file, error) {
	f := file{Projects: map[string]entry{}}
	if s.Path == "" {
		return f, nil
	}
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("trust: read %s: %w", s.Path, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return file{Projects: map[string]entry{}}, fmt.Errorf("trust: %s is malformed (%v); no project counts as trusted until it is fixed or removed", s.Path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string]entry{}
	}
	return f, nil
}

func (s Store) write(f file) error {
	if s.Path == "" {
		return errors.New("trust: no state directory ($XDG_STATE_HOME or $HOME) to keep the decision in")
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("trust: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust: write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// Trusted reports whether p, in exactly this state, was trusted. A
// project with no configuration needs no trust and reports false.
func (s Store) Trusted(p Project) (bool, error) {
	mu.Lock()
	defer mu.Unlock()
	f, err := s.read()
	if err != nil {
		return false, err
	}
	e, ok := f.Projects[p.Root]
	return ok && p.HasConfig && e.Hash == p.Hash, nil
}

// Trust records that p, in this state, is trusted.
func (s Store) Trust(p Project) error {
	mu.Lock()
	defer mu.Unlock()
	f, err := s.read()
	if err != nil && s.Path != "" {
		if _, statErr := os.Stat(s.Path); statErr == nil {
			return err // never overwrite a file we could not read
		}
	}
	f.Projects[p.Root] = entry{Hash: p.Hash, Trusted: time.Now().UTC().Round(time.Second)}
	return s.write(f)
}

// Untrust forgets any decision for the project at root (a real path).
func (s Store) Untrust(root string) error {
	mu.Lock()
	defer mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if _, ok := f.Projects[root]; !ok {
		return nil
	}
	delete(f.Projects, root)
	return s.write(f)
}

// TrustedRoot reports whether the project at root, as its configuration
// is now, is trusted. Errors (an unreadable store or project) count as
// not trusted and are returned for the log.
func (s Store) TrustedRoot(root string) (bool, error) {
	p, err := Identify(root)
	if err != nil {
		return false, err
	}
	return s.Trusted(p)
}
