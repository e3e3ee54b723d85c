package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// DirEnt is one entry of a directory listing.
type DirEnt struct {
	Name string
	Type fs.FileMode // type bits only: fs.ModeDir, fs.ModeSymlink, 0 for a regular file…
}

// direntBufSize is the listing buffer: a directory of a few thousand
// entries is read in one getdents64 call, where os.File.ReadDir reads
// 8 KB at a time.
const direntBufSize = 128 << 10

// List lists d, unsorted, appending to ents (reused by the caller), with
// getdents64 into *buf (reused; made on first use). The type of an entry
// comes from the listing (d_type), without a stat per entry; only a
// file system that does not report types is asked, with fstatat, for
// the entries it leaves unknown. The names of one getdents64 call share
// one allocation.
func (d *Dir) List(ents []DirEnt, buf *[]byte) ([]DirEnt, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fd := d.Fd()
	if d.listed {
		if _, err := unix.Seek(fd, 0, 0); err != nil {
			return ents, err
		}
	}
	d.listed = true
	if len(*buf) < direntBufSize {
		*buf = make([]byte, direntBufSize)
	}
	b := *buf
	for {
		n, err := unix.ReadDirent(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return ents, &fs.PathError{Op: "getdents", Path: d.name, Err: err}
		}
		if n <= 0 {
			return ents, nil
		}
		chunk := string(b[:n]) // one allocation for the names of this call
		for off := 0; off+19 <= n; {
			reclen := int(*(*uint16)(unsafe.Pointer(&b[off+16])))
			if reclen == 0 || off+reclen > n {
				break
			}
			typ := b[off+18]
			name := chunk[off+19 : off+reclen]
			for i := 0; i < len(name); i++ {
				if name[i] == 0 {
					name = name[:i]
					break
				}
			}
			off += reclen
			if name == "." || name == ".." || name == "" {
				continue
			}
			t, ok := direntType(typ)
			if !ok {
				var st unix.Stat_t
				if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // gone since the listing, as os.File.ReadDir does
				}
				t = statType(st.Mode)
			}
			ents = append(ents, DirEnt{Name: name, Type: t})
		}
	}
}

// direntType maps d_type to a file type; ok is false for DT_UNKNOWN.
func direntType(t uint8) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	}
	return 0, false
}

// statType maps st_mode to a file type.
func statType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return 0
}

// entries lists d, unsorted, as fs.DirEntry values.
func (d *Dir) entries() ([]fs.DirEntry, error) {
	var buf []byte
	ents, err := d.List(nil, &buf)
	out := make([]fs.DirEntry, len(ents))
	for i, e := range ents {
		out[i] = dirEntry{dir: d.name, DirEnt: e}
	}
	return out, err
}

// dirEntry is a DirEnt as an fs.DirEntry.
type dirEntry struct {
	dir string
	DirEnt
}

func (e dirEntry) Name() string      { return e.DirEnt.Name }
func (e dirEntry) IsDir() bool       { return e.DirEnt.Type.IsDir() }
func (e dirEntry) Type() fs.FileMode { return e.DirEnt.Type }

// Info stats the entry by its path, without following a symlink, as
// the entries of os.File.ReadDir do.
func (e dirEntry) Info() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(e.dir, e.DirEnt.Name))
}

func (e dirEntry) String() string { return fs.FormatDirEntry(e) }
