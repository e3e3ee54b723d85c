package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/catbuddy/cb-ls/filestate"
	"github.com/catbuddy/cb-ls/guard"
)

// DiskWorkspace is the Workspace of the CLI: documents are files, read
// and written through os.Root so that nothing outside the admitting root
// is touched even if a symlink appears between check and use.
type DiskWorkspace struct{}

// maxFileSize bounds what Read loads into memory.
const maxFileSize = 64 << 20

// Read implements Workspace.
func (DiskWorkspace) Read(ctx context.Context, p guard.Path) (Document, error) {
	root, err := os.OpenRoot(p.Root)
	if err != nil {
		return Document{}, fmt.Errorf("open root %s: %w", p.Root, err)
	}
	defer root.Close()
	// Stat first: devices, FIFOs and sockets are refused before open so a
	// read can never hang.
	fi, err := root.Lstat(filepath.FromSlash(p.Rel))
	if err != nil {
		return Document{}, err
	}
	if !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return Document{}, fmt.Errorf("%s is a directory", p.Rel)
		}
		return Document{}, fmt.Errorf("%s is not a regular file (%s)", p.Rel, fi.Mode().Type())
	}
	if fi.Size() > maxFileSize {
		return Document{}, fmt.Errorf("%s is too large (%d bytes; limit %d)", p.Rel, fi.Size(), maxFileSize)
	}
	f, err := root.OpenFile(filepath.FromSlash(p.Rel), os.O_RDONLY|nonblock, 0)
	if err != nil {
		return Document{}, err
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Document{}, fmt.Errorf("read %s: %w", p.Rel, err)
	}
	return Document{Content: content, Stamp: stampOf(fi), Mode: fi.Mode().Perm()}, nil
}

// Apply implements Workspace: it checks that the file still holds
// c.Base, then writes c.After to a temporary file beside it and renames
// it into place, keeping the file's mode.
func (w DiskWorkspace) Apply(ctx context.Context, c Change) (Document, error) {
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	cur, err := w.Read(ctx, c.Path)
	switch {
	case c.Create && err == nil:
		return Document{}, fmt.Errorf("%w: %s was created by someone else meanwhile", ErrRejected, c.Path.Rel)
	case c.Create && errors.Is(err, fs.ErrNotExist):
		cur = Document{Mode: 0o644}
	case err != nil:
		return Document{}, err
	case !bytes.Equal(cur.Content, c.Base.Content):
		return Document{}, fmt.Errorf("%w: %s changed on disk since it was read; read it again", ErrRejected, c.Path.Rel)
	}
	root, err := os.OpenRoot(c.Path.Root)
	if err != nil {
		return Document{}, fmt.Errorf("open root %s: %w", c.Path.Root, err)
	}
	defer root.Close()
	rel := filepath.FromSlash(c.Path.Rel)
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return Document{}, fmt.Errorf("create directory %s: %w", dir, err)
		}
	}
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".cb-tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, cur.Mode.Perm())
	if err != nil {
		return Document{}, fmt.Errorf("write %s: %w", c.Path.Rel, err)
	}
	_, werr := f.Write(c.After)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Chmod(tmp, cur.Mode.Perm()) // umask must not narrow the mode
	}
	if werr == nil {
		werr = root.Rename(tmp, rel)
	}
	if werr != nil {
		_ = root.Remove(tmp)
		return Document{}, fmt.Errorf("write %s: %w", c.Path.Rel, werr)
	}
	fi, err := root.Stat(rel)
	if err != nil {
		return Document{}, err
	}
	return Document{Content: c.After, Stamp: stampOf(fi), Mode: fi.Mode().Perm()}, nil
}

func stampOf(fi fs.FileInfo) filestate.Stamp {
	return filestate.Stamp{ModTime: fi.ModTime(), Size: fi.Size(), Version: -1}
}
