package search

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// Limits of a listing.
const (
	ListDefaultLimit = 500
	ListMaxLimit     = 5000
	ListMaxDepth     = 5
)

// Lister lists directories below one boundary root as a tree.
type Lister struct {
	root *safefile.Dir
}

// OpenLister opens the boundary root of p for listings below it.
func OpenLister(p guard.Path) (*Lister, error) {
	root, err := safefile.OpenBeneath(p.Root, ".")
	if err != nil {
		return nil, err
	}
	return &Lister{root: root}, nil
}

// Close releases the root.
func (l *Lister) Close() error { return l.root.Close() }

// Listing is a directory tree as the model reads it.
type Listing struct {
	Shown      int // entries shown
	More       int // entries left out by the limit
	Unreadable int // directories that could not be read
	text       string
}

// String is the listing with what was left out noted at the end.
func (ls *Listing) String() string { return ls.text }

// List lists the directory p, in name order, depth levels deep (1: its
// own entries), at most limit entries; the rest is counted. Entries a
// .gitignore ignores are marked "(gitignored)" and not descended into;
// .git/ and .catbuddy/ are left out; symlinks show their target.
func (l *Lister) List(ctx context.Context, p guard.Path, depth, limit int, disp Display) *Listing {
	w := &lister{ctx: ctx, root: l.root, disp: disp, limit: limit}
	w.list(p.Rel, ancestorIgnores(l.root, p.Rel), depth)
	if w.more > 0 {
		fmt.Fprintf(&w.out, "… and %d more entries (raise limit, lower depth, or list a subdirectory)\n", w.more)
	}
	if w.unreadable > 0 {
		fmt.Fprintf(&w.out, "(%d directories could not be read)\n", w.unreadable)
	}
	return &Listing{Shown: w.shown, More: w.more, Unreadable: w.unreadable, text: strings.TrimRight(w.out.String(), "\n")}
}

// lister walks depth-first in name order, so the listing reads as a tree.
type lister struct {
	ctx   context.Context
	root  *safefile.Dir
	disp  Display
	limit int

	out        strings.Builder
	shown      int
	more       int
	unreadable int
}

func (l *lister) list(rel string, chain *ignoreChain, depth int) {
	if l.ctx.Err() != nil {
		return
	}
	dir, err := l.root.OpenDir(filepath.FromSlash(rel))
	if err != nil {
		l.unreadable++
		return
	}
	defer dir.Close()
	ents, err := dir.ReadDir()
	if err != nil {
		l.unreadable++
		return
	}
	chain = chain.push(loadIgnore(dir, ".gitignore", RelJoin(rel, "")))
	for _, e := range ents {
		name, t := e.Name(), e.Type()
		if alwaysSkipped(name) {
			continue
		}
		child := RelJoin(rel, name)
		if l.shown >= l.limit {
			l.more++
			if t.IsDir() && depth > 1 && !chain.ignored(child, true) {
				l.more += l.count(child, chain, depth-1)
			}
			continue
		}
		l.shown++
		line := l.disp(child)
		ignored := chain.ignored(child, t.IsDir())
		switch {
		case t.IsDir():
			line += "/"
		case t&fs.ModeSymlink != 0:
			if target, err := dir.Readlink(name); err == nil {
				line += " -> " + target
			}
		case !t.IsRegular():
			line += " (" + specialKind(t) + ")"
		}
		if ignored {
			line += " (gitignored)"
		}
		l.out.WriteString(line + "\n")
		if t.IsDir() && !ignored && depth > 1 {
			l.list(child, chain, depth-1)
		}
	}
}

// count counts the entries below rel that the listing left out.
func (l *lister) count(rel string, chain *ignoreChain, depth int) int {
	dir, err := l.root.OpenDir(filepath.FromSlash(rel))
	if err != nil {
		return 0
	}
	defer dir.Close()
	ents, err := dir.ReadDir()
	if err != nil {
		return 0
	}
	chain = chain.push(loadIgnore(dir, ".gitignore", RelJoin(rel, "")))
	n := 0
	for _, e := range ents {
		if alwaysSkipped(e.Name()) {
			continue
		}
		n++
		child := RelJoin(rel, e.Name())
		if e.IsDir() && depth > 1 && !chain.ignored(child, true) {
			n += l.count(child, chain, depth-1)
		}
	}
	return n
}

func specialKind(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
