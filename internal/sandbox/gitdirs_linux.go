package sandbox

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Every git directory in the workspace is read-only to a command that
// may write the workspace but not .git: the root's, each nested
// repository's (a vendored library, a submodule checked out with its
// own .git, a clone inside a clone), and the one a .git file names
// (worktrees, submodules: "gitdir: <path>") where it lies inside the
// workspace, together with the .git file itself. Git runs hooks and
// config (core.fsmonitor, core.hooksPath) from any of them when the user
// next runs git there, outside every sandbox.
//
// They are found by walking the workspace for each command, since a
// command cannot be trusted to say where they are and the last one may
// have cloned one. The walk reads directory entries only (their types
// come with them, nothing is stat'ed), never follows a symlink, and
// does not descend into a git directory or a .catbuddy/; on a warm tree
// of 200,000 files in 10,000 directories it costs about 100 ms of CPU
// (TestGitDirsCost). Only a command that may write the workspace but
// not .git pays it.

// gitDirs returns the real paths of the git directories and .git files
// in roots, and of the directories those files point to inside roots.
func gitDirs(roots []string) []string {
	real := existingReal(roots)
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, root := range real {
		walkGit(root, func(p string, isFile bool) {
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				// A .git link counts where it leads inside the
				// workspace; elsewhere is no git directory of its own
				// (and a mount over /proc or a missing place would fail).
				if target := realOr(p); underAny(target, real) {
					add(target)
				}
				return
			}
			add(p)
			if !isFile {
				return
			}
			if target := gitdirTarget(p); target != "" && underAny(target, real) {
				add(target)
			}
		})
	}
	return out
}

// walkGit calls found for every .git entry beneath root: a directory
// (or a symlink) with isFile false, a regular file with isFile true.
// It reads the raw directory entries, whose types come with them, into
// one buffer, and makes a string only of the names it keeps.
func walkGit(root string, found func(p string, isFile bool)) {
	buf := make([]byte, 64<<10)
	stack := []string{root}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		for {
			n, err := unix.Getdents(fd, buf)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n <= 0 {
				break
			}
			for b := buf[:n]; len(b) >= direntName; {
				reclen := int(binary.NativeEndian.Uint16(b[16:18]))
				if reclen < direntName || reclen > len(b) {
					break
				}
				typ, name := b[18], b[direntName:reclen]
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				b = b[reclen:]
				switch {
				case string(name) == ".git":
					found(dir+"/.git", typ == unix.DT_REG)
				case typ == unix.DT_DIR && string(name) != "." && string(name) != ".." && string(name) != guard.StateDir:
					stack = append(stack, dir+"/"+string(name))
				case typ == unix.DT_UNKNOWN:
					// Some filesystems give no types: ask.
					var st unix.Stat_t
					if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR &&
						string(name) != "." && string(name) != ".." && string(name) != guard.StateDir {
						stack = append(stack, dir+"/"+string(name))
					}
				}
			}
		}
		unix.Close(fd)
	}
}

// direntName is the offset of the name in a linux_dirent64, after its
// inode (8 bytes), offset (8), record length (2) and type (1).
const direntName = 19

// gitdirTarget returns the real path a .git file names ("gitdir: X",
// X relative to the file's directory), or "" when it names none.
func gitdirTarget(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	line, _, _ := bytes.Cut(b, []byte("\n"))
	target, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	return realOr(target)
}

// upperGitDirs returns the merged view's paths of the git directories
// and .git files a layer holds (created by earlier commands of the run,
// or placed as pending edits): they exist only in the layer, so the
// walk of the folder cannot find them. A whiteout is no .git.
func upperGitDirs(layers []OverlayLayer) []string {
	var out []string
	for _, l := range layers {
		upper, lower := realOr(l.Upper), realOr(l.Lower)
		walkGit(upper, func(p string, isFile bool) {
			if fi, err := os.Lstat(p); err == nil && !isWhiteout(fi) {
				out = append(out, lower+strings.TrimPrefix(p, upper))
			}
		})
	}
	return out
}
