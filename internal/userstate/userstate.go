// Package userstate places what cb-ls keeps about a workspace folder
// (each run's pending change set, the sessions and their transcripts)
// in the user's own state directory, never in the project.
//
// A project is untrusted until the user says otherwise, and a cloned
// one can hold anything: a state directory inside it could be planted,
// with manifests naming files outside the workspace and links to the
// user's secrets, and the project's own tools (linters, test runners)
// would walk cb-ls's files. So the folder's state lives under
//
//	<state>/folders/<name>-<hash>/
//
// where <state> is the user's state directory ([Base]: by default
// $XDG_STATE_HOME/catbuddy, else ~/.local/state/catbuddy on Linux,
// ~/Library/Application Support/catbuddy on macOS and
// %LOCALAPPDATA%\catbuddy on Windows), <name> is the folder's base name
// (for the reader) and <hash> a hash of its real path, so two checkouts
// never share a run. A record beside it (folder.json) names the path
// and the directory's identity, so a folder that was moved or renamed
// finds its state again ([Folder.Adopt]).
//
// Every directory is created 0700 and opened without following a
// symbolic link from <state> down ([Folder.Open]): nothing but this
// user's cb-ls writes there, and a link found on the way is refused, not
// followed. The package imports nothing of cb-ls.
package userstate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
)

// appName is the state directory's own name, the same as the user's
// configuration directory's (~/.config/catbuddy).
const appName = "catbuddy"

// foldersDir holds one directory per workspace folder.
const foldersDir = "folders"

// Base returns the user's state directory: $XDG_STATE_HOME/catbuddy
// when that variable holds an absolute path, else the platform's place
// for per-user application state under the home directory. It is ""
// when no home directory is known. getenv is os.Getenv outside tests.
func Base(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		// The XDG specification says a relative path is invalid and must
		// be ignored: it would name a directory under whatever the cwd is.
		return filepath.Join(x, appName)
	}
	switch runtime.GOOS {
	case "windows":
		if l := getenv("LOCALAPPDATA"); l != "" && filepath.IsAbs(l) {
			return filepath.Join(l, appName)
		}
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = h
	}
	switch runtime.GOOS {
	case "darwin", "ios":
		return filepath.Join(home, "Library", "Application Support", appName)
	case "windows":
		return filepath.Join(home, "AppData", "Local", appName)
	}
	return filepath.Join(home, ".local", "state", appName)
}

// ErrNoState is returned when no state directory is known (no home
// directory): cb-ls then keeps nothing between processes.
var ErrNoState = errors.New("no state directory: neither XDG_STATE_HOME nor a home directory is set")

// Folder is one workspace folder's place in the state directory.
type Folder struct {
	// Root is the workspace folder, its real path.
	Root string
	// Dir is <state>/folders/<key>: what the folder's state lives in.
	Dir string
	// base is <state>.
	base string
}

// For returns the place of the workspace folder root in the state
// directory base ("" for [Base] of the environment). root is resolved
// to its real path first, so a folder reached through a link shares
// the state of its target. Nothing is created.
func For(base, root string) (Folder, error) {
	if base == "" {
		base = Base(os.Getenv)
		if base == "" {
			return Folder{}, ErrNoState
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Folder{}, fmt.Errorf("state of %s: %w", root, err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return Folder{}, fmt.Errorf("state of %s: %w", root, err)
	}
	return Folder{Root: real, Dir: filepath.Join(base, foldersDir, Key(real)), base: base}, nil
}

// Path returns the path of sub… inside the folder's state directory.
func (f Folder) Path(sub ...string) string {
	return filepath.Join(append([]string{f.Dir}, sub...)...)
}

// Key names the state directory of the folder whose real path is real:
// its base name, made safe for any file system, and 16 hex digits of
// its path's SHA-256.
func Key(real string) string {
	sum := sha256.Sum256([]byte(real))
	name := strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, filepath.Base(real))
	name = strings.TrimLeft(name, ".")
	if len(name) > 40 {
		name = name[:40]
	}
	if name == "" {
		name = "root"
	}
	return name + "-" + hex.EncodeToString(sum[:8])
}

// Open opens sub… in the folder's state directory, creating what is
// missing (0700) and following no symbolic link from the state
// directory down: each component is checked with Lstat, opened, and the
// opened directory compared with the one checked, so a swap between the
// two is refused too. The folder's record (folder.json) is written when
// its directory is made.
func (f Folder) Open(sub ...string) (*os.Root, error) {
	if f.Dir == "" {
		return nil, ErrNoState
	}
	top, err := openBase(f.base)
	if err != nil {
		return nil, err
	}
	folders, err := openOwnDir(top, foldersDir, filepath.Join(f.base, foldersDir))
	top.Close()
	if err != nil {
		return nil, err
	}
	cur, err := openOwnDir(folders, filepath.Base(f.Dir), f.Dir)
	folders.Close()
	if err != nil {
		return nil, err
	}
	if err := ensureRecord(cur, f.Root); err != nil {
		cur.Close()
		return nil, err
	}
	where := f.Dir
	for _, name := range sub {
		where = filepath.Join(where, name)
		next, err := openOwnDir(cur, name, where)
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// ErrLink is returned when a component of the state directory is not a
// real directory of this user's.
var ErrLink = errors.New("is a symbolic link or not a directory; cb-ls does not keep its state through it")

// openBase opens the state directory itself, creating it (and what is
// missing above it, which is the user's own) with mode 0700. It must be
// this user's, and writable by nobody else: whoever can write it could
// plant a change set.
func openBase(base string) (*os.Root, error) {
	parent := filepath.Dir(base)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	p, err := os.OpenRoot(parent)
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	defer p.Close()
	r, err := openOwnDir(p, filepath.Base(base), base)
	if err != nil {
		return nil, err
	}
	if err := checkOwner(r, base); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func openOwnDir(parent *os.Root, name, where string) (*os.Root, error) {
	fi, err := parent.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := parent.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("state directory: %w", err)
		}
		fi, err = parent.Lstat(name)
	}
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s %w", where, ErrLink)
	}
	r, err := parent.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	st, err := r.Stat(".")
	if err != nil || !os.SameFile(fi, st) {
		r.Close()
		return nil, fmt.Errorf("%s %w (it changed while being opened)", where, ErrLink)
	}
	return r, nil
}

// OpenPath opens dir, a directory inside the state directory of the
// environment ([Base]), creating what is missing (0700) and following
// no symbolic link from the state directory down, like [Folder.Open].
// It is how a file found by its path earlier (a session's log) is
// written again.
func OpenPath(dir string) (*os.Root, error) {
	base := Base(os.Getenv)
	if base == "" {
		return nil, ErrNoState
	}
	rel, err := filepath.Rel(base, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is not in the state directory %s", dir, base)
	}
	cur, err := openBase(base)
	if err != nil {
		return nil, err
	}
	where := base
	for _, name := range strings.Split(rel, string(os.PathSeparator)) {
		where = filepath.Join(where, name)
		next, err := openOwnDir(cur, name, where)
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}
