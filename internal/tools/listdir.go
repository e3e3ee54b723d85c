package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

const listDirDescription = `List a directory. Paths are relative to the workspace root, in name order; directories end with "/", symlinks show their target ("name -> target") and are not followed.

- path: the directory (default: the workspace root).
- depth: how many levels to descend (1 = only the directory's own entries; at most 5).
- limit: the most entries to show (default 500).

Entries ignored by .gitignore are shown with "(gitignored)" and not descended into; .git/ and .catbuddy/ are left out. Use glob to find files by pattern and grep to search contents.`

type listDirInput struct {
	Path  string `json:"path,omitempty" jsonschema:"directory to list; default the workspace root"`
	Depth int    `json:"depth,omitempty" jsonschema:"levels to descend, 1-5; default 1"`
	Limit int    `json:"limit,omitempty" jsonschema:"most entries to show; default 500"`
}

const (
	listDefaultLimit = 500
	listMaxLimit     = 5000
	listMaxDepth     = 5
)

// ListDir is the list_dir tool.
func ListDir(tc *ToolContext) Tool {
	t := NewTool("list_dir", listDirDescription, func(ctx context.Context, in listDirInput) (Result, error) {
		return tc.listDir(ctx, in)
	})
	t.ReadOnly = true
	return t
}

func (tc *ToolContext) listDir(ctx context.Context, in listDirInput) (Result, error) {
	depth := in.Depth
	if depth == 0 {
		depth = 1
	}
	if depth < 0 || depth > listMaxDepth {
		return Errorf("depth must be between 1 and %d, not %d", listMaxDepth, in.Depth), nil
	}
	if in.Limit < 0 {
		return Errorf("limit must be positive, not %d", in.Limit), nil
	}
	limit := min(in.Limit, listMaxLimit)
	if limit == 0 {
		limit = listDefaultLimit
	}
	arg := in.Path
	if arg == "" {
		arg = "."
	}
	p, err := tc.Resolve(arg)
	if err != nil {
		return Errorf("%v", err), nil
	}
	root, err := openBeneath(p.Root, ".")
	if err != nil {
		return Errorf("list_dir %s: %v", arg, err), nil
	}
	defer root.Close()
	st, err := statPath(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Errorf("path %q does not exist", arg), nil
	}
	if err != nil {
		return Errorf("list_dir %s: %v", arg, err), nil
	}
	if !st.IsDir() {
		return Errorf("path %q is a file, not a directory; use read_file to read it", arg), nil
	}
	l := &lister{ctx: ctx, root: root, disp: displayer(tc.WorkRoot(), p), limit: limit}
	l.list(p.Rel, ancestorIgnores(root, p.Rel), depth)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if l.shown == 0 && l.more == 0 {
		if l.unreadable > 0 {
			return Errorf("list_dir %s: directory could not be read", arg), nil
		}
		return Text(fmt.Sprintf("%s is empty.", l.disp(p.Rel))), nil
	}
	if l.more > 0 {
		fmt.Fprintf(&l.out, "… and %d more entries (raise limit, lower depth, or list a subdirectory)\n", l.more)
	}
	if l.unreadable > 0 {
		fmt.Fprintf(&l.out, "(%d directories could not be read)\n", l.unreadable)
	}
	return Text(strings.TrimRight(l.out.String(), "\n")), nil
}

// lister walks depth-first in name order, so the listing reads as a tree.
type lister struct {
	ctx   context.Context
	root  *dirFD
	disp  func(rel string) string
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
	dir, err := l.root.openDir(relOS(rel))
	if err != nil {
		l.unreadable++
		return
	}
	defer dir.Close()
	ents, err := dir.readDir()
	if err != nil {
		l.unreadable++
		return
	}
	chain = chain.push(loadIgnore(dir, ".gitignore", relJoin(rel, "")))
	for _, e := range ents {
		name, t := e.Name(), e.Type()
		if alwaysSkipped(name) {
			continue
		}
		child := relJoin(rel, name)
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
			if target, err := dir.readlink(name); err == nil {
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
	dir, err := l.root.openDir(relOS(rel))
	if err != nil {
		return 0
	}
	defer dir.Close()
	ents, err := dir.readDir()
	if err != nil {
		return 0
	}
	chain = chain.push(loadIgnore(dir, ".gitignore", relJoin(rel, "")))
	n := 0
	for _, e := range ents {
		if alwaysSkipped(e.Name()) {
			continue
		}
		n++
		child := relJoin(rel, e.Name())
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
