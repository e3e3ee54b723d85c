package safefile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path"
)

// copyChunk is how much ReplaceBeneath copies between two looks at its
// context: the kernel copies it file to file (copy_file_range) where it
// can.
const copyChunk = 64 << 20

// tempName is a unique hidden name beside name.
func tempName(name string) string {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	return "." + name + "." + hex.EncodeToString(rnd[:]) + ".cb-tmp"
}

// openParentAll opens the directory holding rel below root, making the
// missing directories, following no symlink.
func openParentAll(root, rel string) (*Dir, string, error) {
	top, err := OpenBeneath(root, ".")
	if err != nil {
		return nil, "", err
	}
	defer top.Close()
	parent, base := path.Split(rel)
	if parent == "" {
		parent = "."
	}
	d, err := top.MkdirAll(parent)
	if err != nil {
		return nil, "", err
	}
	return d, base, nil
}

// ReplaceBeneath makes rel below root a regular file holding what r
// holds, with mode perm, atomically (a temporary file beside it renamed
// over it), creating missing directories and following no symlink. The
// copy is streamed, whatever its size, and stops when ctx is done.
func ReplaceBeneath(ctx context.Context, root, rel string, r io.Reader, perm fs.FileMode) error {
	d, base, err := openParentAll(root, rel)
	if err != nil {
		return err
	}
	defer d.Close()
	tmp := tempName(base)
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.Perm())
	if err != nil {
		return err
	}
	for err == nil {
		if err = ctx.Err(); err != nil {
			break
		}
		var n int64
		n, err = io.CopyN(f, r, copyChunk)
		if err == io.EOF || err == nil && n < copyChunk {
			err = io.EOF
			break
		}
	}
	if err == io.EOF {
		err = f.Chmod(perm.Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.Rename(tmp, base)
	}
	if err != nil {
		_ = d.Remove(tmp)
	}
	return err
}

// RemoveBeneath removes the entry rel below root, a symlink itself and
// never what it points to, reached following no symlink. A missing
// entry is no error.
func RemoveBeneath(root, rel string) error {
	d, base, err := OpenParent(root, rel)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	defer d.Close()
	if err := d.Remove(base); err != nil && !os.IsNotExist(err) {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	return nil
}
