package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// ApplyAll implements MultiApplier, all or nothing across files: every
// file is checked against its Change.Base and the new contents are
// written to temporary files beside them first; only then are they
// renamed into place (a new file is linked, which fails if someone
// created it meanwhile; a deleted file is moved aside). If any step
// fails, the files already replaced get their old content back and the
// temporary files are removed. Modes are kept.
func (w DiskWorkspace) ApplyAll(ctx context.Context, cs []Change) ([]Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Two runs of this process writing one file: the base check and the
	// rename must not interleave, or the second would overwrite the
	// first unseen. Stripes are taken in order, each once.
	for _, mu := range applyLocksFor(cs) {
		mu.Lock()
		defer mu.Unlock()
	}
	roots := map[string]*safefile.Dir{}
	staged := make([]stagedWrite, 0, len(cs))
	defer func() {
		for _, st := range staged {
			st.dir.Close()
		}
		for _, r := range roots {
			r.Close()
		}
	}()
	cleanup := func() {
		for _, st := range staged {
			if st.tmp != "" {
				_ = st.dir.Remove(st.tmp)
			}
		}
	}
	for _, c := range cs {
		root, ok := roots[c.Path.Root]
		if !ok {
			r, err := safefile.OpenBeneath(c.Path.Root, ".")
			if err != nil {
				cleanup()
				return nil, fmt.Errorf("open root %s: %w", c.Path.Root, err)
			}
			roots[c.Path.Root], root = r, r
		}
		st, err := w.stage(root, c)
		if err != nil {
			cleanup()
			return nil, err
		}
		staged = append(staged, st)
	}
	docs := make([]Document, len(staged))
	for i := range staged {
		doc, err := staged[i].commit()
		if err != nil {
			for k := i - 1; k >= 0; k-- {
				if rerr := staged[k].rollback(); rerr != nil {
					err = fmt.Errorf("%w; and putting back %s failed: %v", err, staged[k].c.Path.Rel, rerr)
				}
			}
			cleanup()
			return nil, err
		}
		docs[i] = doc
	}
	for _, st := range staged {
		if st.aside != "" {
			_ = st.dir.Remove(st.aside)
		}
	}
	return docs, nil
}

// stagedWrite is one change checked and written to a temporary file,
// ready to be moved into place.
type stagedWrite struct {
	c     Change
	dir   *safefile.Dir // the file's directory, opened beneath its root
	name  string
	tmp   string // the new content (none for a delete)
	fi    fs.FileInfo
	mode  fs.FileMode
	aside string // where a deleted file was moved, until all succeeded
}

// stage checks c against the disk and writes its new content beside it.
// On success the returned stagedWrite holds the open directory; on
// failure it holds nothing to close.
func (w DiskWorkspace) stage(root *safefile.Dir, c Change) (stagedWrite, error) {
	parent, name := path.Split(c.Path.Rel)
	parent = strings.TrimSuffix(parent, "/")
	if parent == "" {
		parent = "."
	}
	st := stagedWrite{c: c, name: name}
	var err error
	if c.Create {
		st.dir, err = root.MkdirAll(filepath.FromSlash(parent))
		if err != nil {
			return stagedWrite{}, fmt.Errorf("create directory %s: %w", parent, err)
		}
	} else if st.dir, err = root.OpenDir(filepath.FromSlash(parent)); err != nil {
		return stagedWrite{}, err
	}
	fail := func(err error) (stagedWrite, error) {
		st.dir.Close()
		return stagedWrite{}, err
	}
	same, mode, err := st.dir.Holds(name, c.Path.Rel, c.Base.Content)
	st.mode = mode
	switch {
	case c.Create && err == nil:
		return fail(fmt.Errorf("%w: %s was created by someone else meanwhile; read it first", ErrRejected, c.Path.Rel))
	case c.Create && errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fail(err)
	case !same:
		return fail(fmt.Errorf("%w: %s changed on disk since it was read; read it again", ErrRejected, c.Path.Rel))
	}
	if c.Delete {
		return st, nil
	}
	st.tmp, st.fi, err = st.dir.WriteTemp(name, c.After, mode, c.Create, w.Durable)
	if err != nil {
		return fail(fmt.Errorf("write %s: %w", c.Path.Rel, err))
	}
	return st, nil
}

// commit moves the staged content into place.
func (st *stagedWrite) commit() (Document, error) {
	c := st.c
	switch {
	case c.Delete:
		st.aside = "." + st.name + ".cb-deleted"
		if err := st.dir.Rename(st.name, st.aside); err != nil {
			st.aside = ""
			return Document{}, fmt.Errorf("delete %s: %w", c.Path.Rel, err)
		}
		return Document{}, nil
	case c.Create:
		err := st.dir.Link(st.tmp, st.name)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			// A filesystem without hard links: fall back to a checked
			// rename, which leaves only a tiny window for a racing create.
			if ok, serr := st.dir.Exists(st.name); serr == nil && !ok {
				err = st.dir.Rename(st.tmp, st.name)
			}
		}
		_ = st.dir.Remove(st.tmp)
		st.tmp = ""
		if errors.Is(err, fs.ErrExist) {
			return Document{}, fmt.Errorf("%w: %s was created by someone else meanwhile; read it first", ErrRejected, c.Path.Rel)
		}
		if err != nil {
			return Document{}, fmt.Errorf("write %s: %w", c.Path.Rel, err)
		}
	default:
		if err := st.dir.Rename(st.tmp, st.name); err != nil {
			return Document{}, fmt.Errorf("write %s: %w", c.Path.Rel, err)
		}
		st.tmp = ""
	}
	return Document{Content: c.After, Stamp: stampOf(st.fi), Mode: st.fi.Mode().Perm()}, nil
}

// rollback undoes a committed write: the old content back, a created
// file removed, a deleted file moved back.
func (st *stagedWrite) rollback() error {
	c := st.c
	switch {
	case c.Delete:
		err := st.dir.Rename(st.aside, st.name)
		st.aside = ""
		return err
	case c.Create:
		return st.dir.Remove(st.name)
	}
	tmp, _, err := st.dir.WriteTemp(st.name, c.Base.Content, st.mode, false, false)
	if err != nil {
		return err
	}
	if err := st.dir.Rename(tmp, st.name); err != nil {
		_ = st.dir.Remove(tmp)
		return err
	}
	return nil
}

// applyLocksFor returns the lock stripes of cs's files, each once, in a
// fixed order so that two ApplyAll calls cannot deadlock.
func applyLocksFor(cs []Change) []*sync.Mutex {
	var idx []int
	for _, c := range cs {
		i := applyLockIndex(c.Path.Abs)
		if !slices.Contains(idx, i) {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	out := make([]*sync.Mutex, len(idx))
	for k, i := range idx {
		out[k] = &applyLocks[i]
	}
	return out
}
