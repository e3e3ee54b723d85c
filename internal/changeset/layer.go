package changeset

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Layer returns the run's copy-on-write layer for exec (tools.Layer):
// under is the front end's Workspace, whose open buffers with unsaved
// text (tools.BufferLister) are put in the layer before each command,
// so the command sees what the user sees plus the run's changes. They
// are not the run's change unless the command changes them.
func (s *Set) Layer(under tools.Workspace) tools.Layer {
	return &layer{s: s, under: under}
}

type layer struct {
	s      *Set
	under  tools.Workspace
	roots  []string
	before map[string]layerState // by absolute path, as the command found it
	held   bool
}

// Prepare implements tools.Layer. It holds the set's operations (keep,
// discard) until Collect: overlayfs must not see its upper directory
// change under a mounted command.
func (l *layer) Prepare(ctx context.Context, roots []string) ([]sandbox.OverlayLayer, error) {
	s := l.s
	s.op.Lock()
	l.held, l.roots = true, roots
	s.mu.Lock()
	layers, err := s.layers(roots)
	l.before = s.pendingByAbs()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := l.materialise(ctx); err != nil {
		return nil, err
	}
	return layers, nil
}

// materialise puts the open buffers whose text differs from the disk
// in the layer, with that text as their base.
func (l *layer) materialise(ctx context.Context) error {
	bl, ok := l.under.(tools.BufferLister)
	if !ok {
		return nil
	}
	s := l.s
	for _, p := range bl.OpenBuffers(ctx) {
		if !slices.Contains(l.roots, p.Root) {
			continue
		}
		s.mu.Lock()
		_, pending := s.pending[p.Root][p.Rel]
		s.mu.Unlock()
		if pending {
			continue // the run's own version is what the command sees
		}
		doc, err := l.under.Read(ctx, p)
		if err != nil || !doc.Open {
			continue
		}
		disk, err := os.ReadFile(p.Abs)
		if err == nil && bytes.Equal(disk, doc.Content) {
			continue
		}
		s.mu.Lock()
		f := s.folders[p.Root]
		err = f.writeBase(p.Rel, doc.Content)
		if err == nil {
			f.files[p.Rel] = &fileRecord{Existed: true, Materialised: true}
			err = f.save(s.manifest())
		}
		if err == nil {
			err = f.layer.WriteFile(p.Rel, doc.Content, 0)
		}
		s.mu.Unlock()
		if err != nil {
			return fmt.Errorf("put the unsaved buffer of %s in the run's layer: %w", p.Rel, err)
		}
	}
	return nil
}

// Collect implements tools.Layer: it scans each folder's upper
// directory (sandbox.ScanUpper), and what the command changed joins the
// set.
func (l *layer) Collect(ctx context.Context) (tools.LayerReport, error) {
	s := l.s
	if !l.held {
		return tools.LayerReport{}, nil
	}
	defer func() {
		l.held = false
		s.op.Unlock()
	}()
	s.mu.Lock()
	var errs []string
	for _, r := range l.roots {
		if f, ok := s.folders[r]; ok {
			if err := s.rescan(f); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	after := s.pendingByAbs()
	s.mu.Unlock()
	rep := l.report(after)
	s.changed()
	if len(errs) > 0 {
		return rep, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return rep, nil
}

// report describes what the command changed: the difference between
// the set's index before and after it.
func (l *layer) report(after map[string]layerState) tools.LayerReport {
	var rep tools.LayerReport
	var names []string
	groups := map[string]int{}
	var order []string
	for _, abs := range sortedRels(after) {
		st := after[abs]
		e := st.entry
		if b, ok := l.before[abs]; ok && b == st {
			continue
		}
		rep.Changed = append(rep.Changed, abs)
		if e.group != "" {
			key := l.s.display(pathOf(st.root, e.group).Abs)
			if _, ok := groups[key]; !ok {
				order = append(order, key)
			}
			groups[key]++
			continue
		}
		names = append(names, fmt.Sprintf("%s %s", e.kind, l.s.display(abs)))
	}
	for abs := range l.before {
		if _, ok := after[abs]; !ok {
			rep.Changed = append(rep.Changed, abs)
			names = append(names, "reverted "+l.s.display(abs))
		}
	}
	for _, g := range order {
		names = append(names, fmt.Sprintf("%s/ (%d files)", g, groups[g]))
	}
	if len(names) == 0 {
		return rep
	}
	const most = 20
	more := ""
	if len(names) > most {
		more = fmt.Sprintf("; and %d more", len(names)-most)
		names = names[:most]
	}
	rep.Summary = "Pending the user's review: " + strings.Join(names, "; ") + more
	return rep
}

// layerState is one pending path as a command found or left it.
type layerState struct {
	root    string
	entry   pendingEntry
	size    int64
	modTime int64
}

// pendingByAbs snapshots the set's index with each file's size and
// time in the layer, by absolute path. s.mu is held.
func (s *Set) pendingByAbs() map[string]layerState {
	out := map[string]layerState{}
	for root, idx := range s.pending {
		f := s.folders[root]
		for rel, e := range idx {
			st := layerState{root: root, entry: e}
			if fi, err := f.statUpper(rel); err == nil {
				st.size, st.modTime = fi.Size(), fi.ModTime().UnixNano()
			}
			out[pathOf(root, rel).Abs] = st
		}
	}
	return out
}

// display names a path of the set for the agent: relative to its
// folder, with the folder's name when the set spans several.
func (s *Set) display(abs string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for root := range s.folders {
		if rel, ok := strings.CutPrefix(abs, root+string(os.PathSeparator)); ok {
			if len(s.folders) > 1 {
				return filepath.Base(root) + "/" + filepath.ToSlash(rel)
			}
			return filepath.ToSlash(rel)
		}
	}
	return abs
}
