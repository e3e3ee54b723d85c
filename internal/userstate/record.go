package userstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// recordName is the folder's record in its state directory: which
// workspace folder the state is of, and that folder's identity.
const recordName = "folder.json"

// maxRecord bounds a record's read: it is a few lines.
const maxRecord = 64 << 10

// record is what folder.json holds.
type record struct {
	// Path is the workspace folder's real path when the state was made
	// (or last taken over).
	Path string `json:"path"`
	// ID is the folder's identity on its file system (device and inode
	// where the system has them), to know it again under another path.
	ID string `json:"id,omitempty"`
}

// ensureRecord writes dir's record for root unless it has one.
func ensureRecord(dir *os.Root, root string) error {
	if _, err := dir.Lstat(recordName); err == nil {
		return nil
	}
	return writeRecord(dir, root)
}

// writeRecord (re)writes dir's record for root: beside it, then renamed
// over it, so a reader sees the old record or the new one.
func writeRecord(dir *os.Root, root string) error {
	b, err := json.MarshalIndent(record{Path: root, ID: identity(root)}, "", "  ")
	if err != nil {
		return err
	}
	tmp := recordName + ".new"
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("state of %s: %w", root, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmp, recordName)
	}
	if err != nil {
		_ = dir.Remove(tmp)
		return fmt.Errorf("state of %s: %w", root, err)
	}
	return nil
}

// readRecord reads the record of a folder's state directory, a regular
// file of bounded size reached through no link.
func readRecord(dir *os.Root) (record, error) {
	b, err := ReadFile(dir, recordName, maxRecord)
	if err != nil {
		return record{}, err
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return record{}, fmt.Errorf("%s: %w", recordName, err)
	}
	return r, nil
}

// ErrTooBig is returned by ReadFile for a file over its limit.
var ErrTooBig = errors.New("is larger than cb-ls reads")

// ReadFile reads name in dir: a regular file (never a link, a device or
// a FIFO), of at most limit bytes. It is how every file of the state
// directory is read, so that nothing found there can make cb-ls read
// without end or through a link.
func ReadFile(dir *os.Root, name string, limit int64) ([]byte, error) {
	fi, err := dir.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); cb-ls does not read it", name, fi.Mode().Type())
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s (%d bytes) %w (%d)", name, fi.Size(), ErrTooBig, limit)
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(fi, st) || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s changed while being opened; cb-ls does not read it", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s %w (%d)", name, ErrTooBig, limit)
	}
	return b, nil
}

// Adopt takes over the state of a folder that was kept under another
// path, when f's folder has none of its own: a checkout that was moved
// or renamed finds its pending changes and sessions again. The earlier
// state is recognised by the folder's identity (device and inode) and
// taken only when its recorded path no longer leads to that folder. It
// returns the earlier path, or "" when nothing was taken over.
func (f Folder) Adopt() (string, error) {
	id := identity(f.Root)
	if id == "" || f.Dir == "" {
		return "", nil
	}
	top, err := openBase(f.base)
	if err != nil {
		return "", err
	}
	defer top.Close()
	folders, err := openOwnDir(top, foldersDir, filepath.Join(f.base, foldersDir))
	if err != nil {
		return "", err
	}
	defer folders.Close()
	key := filepath.Base(f.Dir)
	if _, err := folders.Lstat(key); !errors.Is(err, fs.ErrNotExist) {
		return "", nil // the folder has state of its own
	}
	d, err := folders.Open(".")
	if err != nil {
		return "", err
	}
	names, err := d.Readdirnames(maxFolders)
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	for _, name := range names {
		dir, err := openOwnDir(folders, name, filepath.Join(f.base, foldersDir, name))
		if err != nil {
			continue
		}
		rec, err := readRecord(dir)
		dir.Close()
		if err != nil || rec.ID != id || rec.Path == f.Root {
			continue
		}
		if identity(rec.Path) == id {
			continue // the old path still leads to this folder: a link, or a bind mount
		}
		if err := folders.Rename(name, key); err != nil {
			return "", fmt.Errorf("take over the state of %s (moved to %s): %w", rec.Path, f.Root, err)
		}
		dir, err = openOwnDir(folders, key, f.Dir)
		if err != nil {
			return rec.Path, err
		}
		defer dir.Close()
		return rec.Path, writeRecord(dir, f.Root)
	}
	return "", nil
}

// maxFolders bounds how many folders' states Adopt looks through.
const maxFolders = 10000
