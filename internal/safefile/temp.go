package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
)

// WriteTemp writes content to a new, uniquely named file beside name in
// d and returns its name and its state after the write (a rename keeps
// the modification time, so this is the stamp of the renamed file too).
// Renaming it over name is then an atomic replace for every reader.
// With create the file gets mode 0666 less the umask, as a file any
// editor creates; otherwise exactly mode, which the umask must not
// narrow. durable fsyncs the content before returning.
func (d *Dir) WriteTemp(name string, content []byte, mode fs.FileMode, create, durable bool) (string, fs.FileInfo, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + name + "." + hex.EncodeToString(rnd[:]) + ".cb-tmp"
	perm := mode.Perm()
	if create {
		perm = 0o666 // umask applies, as for a file any editor creates
	}
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", nil, err
	}
	_, err = f.Write(content)
	if err == nil && durable {
		err = f.Sync()
	}
	if err == nil && !create {
		err = f.Chmod(perm) // the umask must not narrow an existing file's mode
	}
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = d.Remove(tmp)
		return "", nil, err
	}
	return tmp, fi, nil
}
