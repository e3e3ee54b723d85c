package lspclient

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// A run whose changes are pending (tools.RunView) reads and edits its
// own view of the workspace, and the language servers must answer
// about that view: a function the run added must have references, a
// call it rewrote must point to the right place. So before each
// question the server is shown the run's pending content of the files
// of its language (didOpen or didChange), and files it was shown for
// another view, or that are no longer pending, go back to the user's
// text (the disk). One server has one view at a time: the view gate
// lets questions of one run in together, and a question of another run
// waits until they are answered. A file the run deleted in its layer
// cannot be taken from a server that reads the disk, so an answer that
// points into one says so.

// viewGate admits questions of one view at a time to a server.
type viewGate struct {
	mu      sync.Mutex
	id      string // the view shown: a run's ID, "" for the user's text
	holders int    // questions being asked under id
	waiting int    // questions of another view waiting
	free    chan struct{}
}

// enter waits until the server may show view id, and holds it.
func (g *viewGate) enter(ctx context.Context, id string) error {
	g.mu.Lock()
	for {
		// A question of the shown view joins, unless another view
		// waits: then it waits its turn too, so no view starves.
		if g.holders == 0 || g.id == id && g.waiting == 0 {
			g.id = id
			g.holders++
			g.mu.Unlock()
			return nil
		}
		if g.free == nil {
			g.free = make(chan struct{})
		}
		free := g.free
		g.waiting++
		g.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			g.mu.Lock()
			g.waiting--
			g.mu.Unlock()
			return ctx.Err()
		}
		g.mu.Lock()
		g.waiting--
	}
}

// leave ends a question entered with enter.
func (g *viewGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holders--
	if g.holders == 0 && g.free != nil {
		close(g.free)
		g.free = nil
	}
}

// enterView shows s the view of the run in ctx (the user's text without
// one) and holds it until leave is called; deleted are the files of
// s's language the run deleted.
func (c *Client) enterView(ctx context.Context, s *server) (leave func(), deleted []string, err error) {
	v, _ := tools.RunViewFrom(ctx)
	if err := s.gate.enter(ctx, v.ID); err != nil {
		return nil, nil, err
	}
	var files []tools.ViewFile
	if v.Files != nil {
		for _, f := range v.Files() {
			if c.serverFor(f.Path) == s.name {
				files = append(files, f)
			}
		}
	}
	return s.gate.leave, s.showView(ctx, files), nil
}

// showView makes s see files with the run's content and every file it
// was shown for a view before, and that files do not name, with the
// user's; it returns the files the view deletes.
func (s *server) showView(ctx context.Context, files []tools.ViewFile) (deleted []string) {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	want := map[string][]byte{}
	for _, f := range files {
		if f.Deleted {
			deleted = append(deleted, f.Path)
			continue
		}
		content, err := f.Read()
		if err != nil {
			s.log.Warn("a pending file of the run's view", "file", f.Path, "error", err)
			continue
		}
		want[f.Path] = content
	}
	s.mu.Lock()
	var back []string
	for p := range s.shown {
		if _, ok := want[p]; !ok {
			back = append(back, p)
			delete(s.shown, p)
		}
	}
	for p := range want {
		s.shown[p] = true
	}
	s.mu.Unlock()
	slices.Sort(back)
	for _, p := range back {
		content, err := os.ReadFile(p)
		if err != nil {
			s.changed(ctx, p, nil, true) // the view created it: gone again
			continue
		}
		s.changed(ctx, p, content, false)
	}
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if _, err := s.open(ctx, p, want[p]); err != nil {
			s.log.Warn("show the run's view", "file", p, "error", err)
		}
	}
	return deleted
}

// isShown reports whether the server has path with a view's content.
func (s *server) isShown(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shown[path]
}

// isOpen reports whether the server has path open.
func (s *server) isOpen(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[path] != nil
}

// noteDeleted adds a caveat to an answer that points into a file the
// run deleted: the server still reads the user's copy.
func (c *Client) noteDeleted(ctx context.Context, raw []byte, deleted []string) {
	for _, p := range deleted {
		if !bytes.Contains(raw, []byte(`"`+string(fileuri.FromPath(p))+`"`)) {
			continue
		}
		tools.NoteLanguageAnswer(ctx, fmt.Sprintf("this run deleted %s (pending the user's review), but the language server still reads the user's copy: the places in it are not in the run's view", c.display(p)))
	}
}

// display names path relative to the workspace folder holding it.
func (c *Client) display(path string) string {
	for _, r := range c.opts.Roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return path
}
