package config

// The trust store keeps the user's decisions about which projects may
// apply the settings that need trust: a project's MCP servers, its
// provider and endpoint, settings that loosen a guard. Decisions live in
// the user's state directory ($XDG_STATE_HOME/catbuddy/trust.json), never
// in the project, and are keyed by the project's real path and a hash of
// its .catbuddy configuration files: a changed file asks again.

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
)

// ProjectFiles are the project files a decision covers, relative to the
// project root.
var ProjectFiles = []string{".catbuddy/config.json", ".catbuddy/mcp.json"}

// ProjectState identifies one state of a project's configuration.
type ProjectState struct {
	// Root is the project's real path (symlinks resolved).
	Root string
	// Hash covers the content (or absence) of every ProjectFiles entry.
	Hash string
	// HasConfig is false when none of ProjectFiles exists: nothing to trust.
	HasConfig bool
}

// IdentifyProject returns root's identity as it is now.
func IdentifyProject(root string) (ProjectState, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return ProjectState{}, fmt.Errorf("trust: project %s: %w", root, err)
	}
	h := sha256.New()
	p := ProjectState{Root: real}
	for _, rel := range ProjectFiles {
		data, err := os.ReadFile(filepath.Join(real, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "%s absent\x00", rel)
			continue
		case err != nil:
			return ProjectState{}, fmt.Errorf("trust: read %s: %w", filepath.Join(real, rel), err)
		}
		p.HasConfig = true
		fmt.Fprintf(h, "%s %d\x00", rel, len(data))
		h.Write(data)
	}
	p.Hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// TrustStore is a trust.json file.
type TrustStore struct {
	// Path is the file; "" means decisions are not kept (nothing is trusted).
	Path string
}

// DefaultTrustStore is trust.json in the user's state directory.
func DefaultTrustStore() TrustStore {
	dir := StateDir(os.Getenv)
	if dir == "" {
		return TrustStore{}
	}
	return TrustStore{Path: filepath.Join(dir, "trust.json")}
}

type trustEntry struct {
	Hash    string    `json:"hash"`
	Trusted time.Time `json:"trusted"`
}

type trustFile struct {
	Projects map[string]trustEntry `json:"projects"`
}

// trustMu serialises this process's read-modify-write cycles; the rename
// keeps the file whole for other processes.
var trustMu sync.Mutex

func (s TrustStore) read() (trustFile, error) {
	f := trustFile{Projects: map[string]trustEntry{}}
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
		return trustFile{Projects: map[string]trustEntry{}}, fmt.Errorf("trust: %s is malformed (%v); no project counts as trusted until it is fixed or removed", s.Path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string]trustEntry{}
	}
	return f, nil
}

func (s TrustStore) write(f trustFile) error {
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
func (s TrustStore) Trusted(p ProjectState) (bool, error) {
	trustMu.Lock()
	defer trustMu.Unlock()
	f, err := s.read()
	if err != nil {
		return false, err
	}
	e, ok := f.Projects[p.Root]
	return ok && p.HasConfig && e.Hash == p.Hash, nil
}

// Trust records that p, in this state, is trusted.
func (s TrustStore) Trust(p ProjectState) error {
	trustMu.Lock()
	defer trustMu.Unlock()
	f, err := s.read()
	if err != nil && s.Path != "" {
		if _, statErr := os.Stat(s.Path); statErr == nil {
			return err // never overwrite a file we could not read
		}
	}
	f.Projects[p.Root] = trustEntry{Hash: p.Hash, Trusted: time.Now().UTC().Round(time.Second)}
	return s.write(f)
}

// Untrust forgets any decision for the project at root (a real path).
func (s TrustStore) Untrust(root string) error {
	trustMu.Lock()
	defer trustMu.Unlock()
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
func (s TrustStore) TrustedRoot(root string) (bool, error) {
	p, err := IdentifyProject(root)
	if err != nil {
		return false, err
	}
	return s.Trusted(p)
}
