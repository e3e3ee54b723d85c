package changeset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Workspace returns the run's view over under (the front end's own
// Workspace: the disk, or the editor's buffers over it): reads see the
// run's pending content (a pending deletion reads as missing), and
// Apply and ApplyAll write into the run's layer at once, never waiting
// for the user. The checks stay those of every Workspace: a change
// whose base is not what the view holds is refused (the tools then ask
// the model to read again).
func (s *Set) Workspace(under tools.Workspace) tools.Workspace {
	return &view{s: s, under: under}
}

type view struct {
	s     *Set
	under tools.Workspace
}

// Read implements tools.Workspace.
func (v *view) Read(ctx context.Context, p guard.Path) (tools.Document, error) {
	v.s.mu.Lock()
	doc, found, err := v.s.readPending(p)
	v.s.mu.Unlock()
	if found || err != nil {
		return doc, err
	}
	return v.under.Read(ctx, p)
}

// readPending returns p's pending state: found is false when the run
// has not changed p. s.mu is held.
func (s *Set) readPending(p guard.Path) (tools.Document, bool, error) {
	e, ok := s.pending[p.Root][p.Rel]
	if !ok {
		return tools.Document{}, false, nil
	}
	if e.kind == KindDeleted {
		return tools.Document{}, true, fmt.Errorf("%s: %w (the run deleted it; pending the user's review)", p.Rel, tools.ErrNotExist)
	}
	f := s.folders[p.Root]
	fi, err := f.statUpper(p.Rel)
	if err != nil {
		return tools.Document{}, true, fmt.Errorf("read %s from the run's layer: %w", p.Rel, err)
	}
	if !fi.Mode().IsRegular() {
		return tools.Document{}, true, fmt.Errorf("%s: %w", p.Rel, tools.ErrNotRegular)
	}
	// Bounded as every Workspace's read, and never through a link.
	content, _, err := safefile.ReadBeneath(context.Background(), f.layer.Upper, p.Rel, safefile.MaxFileSize)
	if err != nil {
		return tools.Document{}, true, fmt.Errorf("read %s from the run's layer: %w", p.Rel, err)
	}
	return tools.Document{Content: content, Mode: fi.Mode().Perm(),
		Stamp: filestate.Stamp{ModTime: fi.ModTime(), Size: fi.Size(), Version: -1}}, true, nil
}

// Apply implements tools.Workspace.
func (v *view) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	docs, err := v.ApplyAll(ctx, []tools.Change{c})
	if err != nil {
		return tools.Document{}, err
	}
	return docs[0], nil
}

// ApplyAll implements tools.MultiApplier: every change is checked
// against the view first, then all are written into the layer; if a
// write fails, those before it are put back.
func (v *view) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := v.s
	s.mu.Lock()
	// The base of a file the run touches first is the user's text,
	// read before anything is written.
	type prior struct {
		had     bool
		content []byte
		mode    fs.FileMode
		deleted bool
	}
	priors := make([]prior, len(cs))
	for i, c := range cs {
		cur, found, err := s.readPending(c.Path)
		if !found {
			s.mu.Unlock() // under may be the editor: never call it locked
			cur, err = v.under.Read(ctx, c.Path)
			s.mu.Lock()
		}
		exists := err == nil
		if err != nil && !errorsIsNotExist(err) {
			s.mu.Unlock()
			return nil, err
		}
		switch {
		case c.Create && exists:
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %s was created by someone else meanwhile; read it first", tools.ErrRejected, c.Path.Rel)
		case !c.Create && !exists:
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %s no longer exists; read it again", tools.ErrRejected, c.Path.Rel)
		case !c.Create && !bytes.Equal(cur.Content, c.Base.Content):
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %s changed since it was read; read it again", tools.ErrRejected, c.Path.Rel)
		}
		priors[i] = prior{had: found, content: cur.Content, mode: cur.Mode, deleted: found && !exists}
		if _, err := s.folderFor(c.Path.Root); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		f := s.folders[c.Path.Root]
		if _, ok := f.files[c.Path.Rel]; !ok {
			rec := &fileRecord{Existed: exists}
			if exists {
				if err := f.writeBase(c.Path.Rel, cur.Content); err != nil {
					s.mu.Unlock()
					return nil, fmt.Errorf("keep the base of %s: %w", c.Path.Rel, err)
				}
			}
			f.files[c.Path.Rel] = rec
		}
	}
	if err := s.saveAll(); err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("store the run's change set: %w", err)
	}
	docs := make([]tools.Document, len(cs))
	for i, c := range cs {
		doc, err := s.writeLayer(c.Path, c.Delete, c.After, c.Base.Mode)
		if err != nil {
			for k := i - 1; k >= 0; k-- {
				p := priors[k]
				if p.had && !p.deleted {
					_, _ = s.writeLayer(cs[k].Path, false, p.content, p.mode)
				} else {
					s.revertLayer(cs[k].Path)
				}
			}
			s.mu.Unlock()
			return nil, err
		}
		docs[i] = doc
	}
	s.files = nil
	if err := s.saveAll(); err != nil {
		s.store.log.Warn("store the run's change set", "run", s.id, "error", err)
	}
	s.mu.Unlock()
	s.changed()
	return docs, nil
}

// writeLayer makes the layer hold content at p (or delete it), and
// indexes it. A file back at its base leaves the set. s.mu is held.
func (s *Set) writeLayer(p guard.Path, del bool, content []byte, mode fs.FileMode) (tools.Document, error) {
	f := s.folders[p.Root]
	rec := f.files[p.Rel]
	base, _ := f.baseText(context.Background(), p.Rel)
	switch {
	case del && (rec == nil || !rec.Existed):
		// Created by the run, deleted again: nothing pending.
		s.revertLayer(p)
		return tools.Document{}, nil
	case del:
		if err := f.layer.Delete(p.Rel); err != nil {
			return tools.Document{}, fmt.Errorf("delete %s in the run's layer: %w", p.Rel, err)
		}
		s.pending[p.Root][p.Rel] = pendingEntry{kind: KindDeleted}
		return tools.Document{}, nil
	case rec != nil && rec.Existed && bytes.Equal(content, base):
		s.revertLayer(p)
		return tools.Document{Content: content, Mode: mode, Stamp: filestate.Stamp{Size: int64(len(content)), Version: -1}}, nil
	}
	if err := f.layer.WriteFile(p.Rel, content, mode.Perm()); err != nil {
		return tools.Document{}, fmt.Errorf("write %s in the run's layer: %w", p.Rel, err)
	}
	kind := KindChanged
	if rec != nil && !rec.Existed {
		kind = KindCreated
	}
	s.pending[p.Root][p.Rel] = pendingEntry{kind: kind}
	doc, _, err := s.readPending(p)
	return doc, err
}

// revertLayer drops whatever the layer holds at p, and p from the set.
// s.mu is held.
func (s *Set) revertLayer(p guard.Path) {
	f := s.folders[p.Root]
	if f == nil {
		return
	}
	if err := f.layer.Revert(p.Rel); err != nil {
		s.store.log.Warn("revert a pending file", "file", p.Rel, "error", err)
	}
	delete(s.pending[p.Root], p.Rel)
	f.dropBase(p.Rel)
}

func errorsIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
