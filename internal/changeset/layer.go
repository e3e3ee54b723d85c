package changeset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/safefile"
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
	lock   *opLock                 // held from Prepare to Collect
	before map[string]pendingEntry // by absolute path, as the command found it
	start  time.Time               // when the command was prepared
	recent map[string]upperState   // pending files the run wrote just before (layer_recent.go)
	held   bool
}

// clockSlack is how far before Prepare a file's change time may lie
// and still count as the command's: the kernel stamps files with a
// coarse clock, up to a tick behind. A file the run changed just before
// is reported only if the command changed it too (layer_recent.go).
const clockSlack = 20 * time.Millisecond

// Prepare implements tools.Layer. It holds the set's operations (keep,
// discard) until Collect: overlayfs must not see its upper directory
// change under a mounted command.
func (l *layer) Prepare(ctx context.Context, roots []string) ([]sandbox.OverlayLayer, error) {
	s := l.s
	s.mu.Lock()
	layers, err := s.layers(roots)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	lock, err := s.lockOps(ctx, roots)
	if err != nil {
		return nil, err
	}
	l.held, l.roots, l.lock = true, roots, lock
	s.mu.Lock()
	l.before = s.pendingByAbs()
	l.start = time.Now().Add(-clockSlack)
	l.recent = l.rememberRecent()
	s.mu.Unlock()
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
		disk, _, err := safefile.ReadBeneath(ctx, p.Root, p.Rel, safefile.MaxFileSize)
		if err != nil && !errors.Is(err, fs.ErrNotExist) || bytes.Equal(disk, doc.Content) {
			// The same, or not a regular file on disk (a link the
			// buffer was opened through): nothing to put in the layer.
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
		l.lock.unlock()
	}()
	s.mu.Lock()
	var errs []string
	for _, r := range l.roots {
		if f, ok := s.folders[r]; ok {
			if err := s.rescanContext(ctx, f); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	rep := l.report()
	s.mu.Unlock()
	s.tidy() // a command that changed nothing leaves no run directory
	s.changed()
	if len(errs) > 0 {
		return rep, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return rep, nil
}

// report describes what the command changed: what the set's index
// gained, lost or holds anew (changed since Prepare). s.mu is held.
func (l *layer) report() tools.LayerReport {
	s := l.s
	var rep tools.LayerReport
	var names []string
	groups := map[string]int{}
	single := map[string]Kind{}
	var order []string
	for _, root := range s.sortedRoots() {
		f := s.folders[root]
		for _, rel := range sortedRels(s.pending[root]) {
			e := s.pending[root][rel]
			abs := pathOf(root, rel).Abs
			if b, ok := l.before[abs]; ok && b == e && !l.touched(f, rel) {
				continue
			}
			if _, ok := l.before[abs]; !ok && e.group == "" && sameAsBase(f, rel) {
				continue // rewritten to the bytes it had (a formatter): no change
			}
			rep.Changed = append(rep.Changed, abs)
			if e.group != "" {
				key := s.displayLocked(pathOf(root, e.group).Abs)
				if _, ok := groups[key]; !ok {
					order = append(order, key)
				}
				groups[key]++
				if e.group == rel {
					single[key] = e.kind // an ignored file of its own: shown as the file
				}
				continue
			}
			names = append(names, s.reportName(f, rel, e, abs))
		}
	}
	now := s.pendingByAbs()
	for _, abs := range sortedRels(l.before) {
		if _, ok := now[abs]; !ok {
			rep.Changed = append(rep.Changed, abs)
			if b := l.before[abs]; b.group != "" {
				// An ignored output an earlier command left and this one
				// removed (a coverage tool's temporary files) counts in
				// its group, not as a file of its own.
				key := s.displayLocked(pathOf(rootOf(s, abs), b.group).Abs)
				if _, ok := groups[key]; !ok {
					order = append(order, key)
				}
				groups[key]++
				continue
			}
			names = append(names, "reverted "+s.displayLocked(abs))
		}
	}
	for _, g := range order {
		if k, ok := single[g]; ok && groups[g] == 1 {
			names = append(names, fmt.Sprintf("%s %s", k, g))
			continue
		}
		names = append(names, fmt.Sprintf("%s/ (%s files)", g, thousands(groups[g])))
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

// sameAsBase reports whether the layer holds rel with the very bytes
// of its base: a file a command rewrote unchanged (a formatter). s.mu
// is held.
func sameAsBase(f *folder, rel string) bool {
	rec := f.files[rel]
	if rec == nil || !rec.Existed {
		return false
	}
	ctx := context.Background()
	pending, err := f.pendingSide(ctx, rel)
	if err != nil || pending.form == FormNone {
		return false
	}
	base, err := f.baseSide(ctx, rel)
	if err != nil {
		return false
	}
	eq, err := same(ctx, base, pending)
	return err == nil && eq
}

// rootOf is the folder of the set abs lies in, or "". s.mu is held.
func rootOf(s *Set, abs string) string {
	for root := range s.folders {
		if strings.HasPrefix(abs, root+string(os.PathSeparator)) {
			return root
		}
	}
	return ""
}

// pendingByAbs snapshots the set's index by absolute path. s.mu is
// held.
func (s *Set) pendingByAbs() map[string]pendingEntry {
	out := map[string]pendingEntry{}
	for root, idx := range s.pending {
		for rel, e := range idx {
			out[pathOf(root, rel).Abs] = e
		}
	}
	return out
}

// touched reports whether the layer's entry at rel was written since
// the command was prepared (a whiteout's time is its making).
func (l *layer) touched(f *folder, rel string) bool {
	fi, err := f.statUpper(rel)
	if err != nil {
		return false // only in the folder: a file beneath a deleted directory
	}
	return fi.ModTime().After(l.start) && !l.unchanged(f, rel)
}

// displayLocked names a path of the set for the agent: relative to its
// folder, with the folder's name when the set spans several. s.mu is
// held.
func (s *Set) displayLocked(abs string) string {
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

// thousands writes n with a comma every three digits: 1,234.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// reportName is how the agent hears of one pending file: "created
// gen.go", and for a whole-file item what it is ("created run.fifo (a
// FIFO; not kept: …)"), with why it runs later or cannot be kept.
// s.mu is held.
func (s *Set) reportName(f *folder, rel string, e pendingEntry, abs string) string {
	name := fmt.Sprintf("%s %s", e.kind, s.displayLocked(abs))
	file, ok := s.fileOf(f, rel, e)
	if !ok {
		return name
	}
	var notes []string
	if file.Whole != nil {
		_, what, _ := strings.Cut(file.Whole.Describe(rel), ": ")
		notes = append(notes, what)
	}
	if file.RunsLater != "" {
		notes = append(notes, "runs later: "+file.RunsLater)
	}
	if file.KeepRefused != "" {
		notes = append(notes, file.KeepRefused)
	}
	if len(notes) > 0 {
		name += " (" + strings.Join(notes, "; ") + ")"
	}
	return name
}
