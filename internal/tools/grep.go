package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
)

const grepDescription = `Search file contents with a regular expression (Go RE2 syntax) and report matching lines as path:line:text.

- path: a file or directory to search (default: the workspace root).
- glob (or include): only search files whose path matches, e.g. "*.go", "**/*.{ts,tsx}", "src/**/test_*.py". Without a slash it matches the file name at any depth.
- literal: search for the pattern text as is (no regexp). case_insensitive: ignore case.
- context: lines of context before and after each match (0–20).
- output_mode: "content" (default), "files_with_matches" (paths only) or "count" (matches per file).
- limit: the most matches (content) or files (other modes) to show.

Matches never span lines. Files ignored by .gitignore, binary files, .git/ and .catbuddy/ are skipped; symlinks are not followed. Paths are relative to the workspace root and sorted. The output says how many matches were left out.`

type grepInput struct {
	Pattern         string `json:"pattern" jsonschema:"the regular expression (Go RE2) or, with literal, the text to find"`
	Path            string `json:"path,omitempty" jsonschema:"file or directory to search; default the workspace root"`
	Glob            string `json:"glob,omitempty" jsonschema:"only files matching this glob, e.g. *.go or src/**/*.{ts,tsx}"`
	Include         string `json:"include,omitempty" jsonschema:"same as glob"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"ignore case"`
	Literal         bool   `json:"literal,omitempty" jsonschema:"treat pattern as plain text, not a regular expression"`
	Context         int    `json:"context,omitempty" jsonschema:"lines of context around each match (0-20)"`
	OutputMode      string `json:"output_mode,omitempty" jsonschema:"content (default), files_with_matches or count"`
	Limit           int    `json:"limit,omitempty" jsonschema:"most matches (content) or files to show; default 100 matches / 200 files"`
}

const (
	grepDefaultMatches = 100
	grepDefaultFiles   = 200
	grepMaxLimit       = 5000
	grepMaxContext     = 20
	grepMaxLineLen     = 400
	grepMaxOutput      = 64 << 10 // bytes of output before the rest is only counted
	grepMaxFileSize    = 64 << 20 // larger files are skipped (and counted)
)

// Grep is the grep tool: a parallel, .gitignore-aware regexp search.
func Grep(tc *ToolContext) Tool {
	t := NewTool("grep", grepDescription, func(ctx context.Context, in grepInput) (Result, error) {
		return tc.grep(ctx, in)
	})
	t.ReadOnly = true
	return t
}

// grepQuery is a validated grep request.
type grepQuery struct {
	m       *lineMatcher
	globs   []globPattern // nil: every file
	context int
	mode    string
	limit   int
}

func parseGrepInput(in grepInput) (grepQuery, error) {
	q := grepQuery{context: in.Context, mode: in.OutputMode}
	switch q.mode {
	case "":
		q.mode = "content"
	case "content", "files_with_matches", "count":
	default:
		return q, fmt.Errorf("output_mode must be content, files_with_matches or count, not %q", in.OutputMode)
	}
	if q.context < 0 || q.context > grepMaxContext {
		return q, fmt.Errorf("context must be between 0 and %d, not %d", grepMaxContext, q.context)
	}
	if in.Limit < 0 {
		return q, fmt.Errorf("limit must be positive, not %d", in.Limit)
	}
	q.limit = min(in.Limit, grepMaxLimit)
	if q.limit == 0 {
		q.limit = grepDefaultMatches
		if q.mode != "content" {
			q.limit = grepDefaultFiles
		}
	}
	g := in.Glob
	if g != "" && in.Include != "" && g != in.Include {
		return q, fmt.Errorf("give glob or include, not both")
	}
	if g == "" {
		g = in.Include
	}
	if g != "" {
		gs, err := compileGlobs(g)
		if err != nil {
			return q, err
		}
		q.globs = gs
	}
	m, err := newLineMatcher(in.Pattern, in.Literal, in.CaseInsensitive)
	if err != nil {
		return q, err
	}
	q.m = m
	return q, nil
}

func (tc *ToolContext) grep(ctx context.Context, in grepInput) (Result, error) {
	q, err := parseGrepInput(in)
	if err != nil {
		return Errorf("%v", err), nil
	}
	arg := in.Path
	p, st, fail := tc.resolveSearchPath("grep", arg)
	if fail != nil {
		return *fail, nil
	}
	if arg == "" {
		arg = "."
	}
	disp := displayer(tc.WorkRoot(), p)
	col := newGrepCollector(q)
	if !st.IsDir() {
		// One named file: ask the Workspace, so an open editor buffer is
		// searched as the user sees it.
		doc, err := tc.Workspace.Read(ctx, p)
		if err != nil {
			return Errorf("grep %s: %v", arg, err), nil
		}
		if isBinary(doc.Content) {
			return Text(fmt.Sprintf("%s is a binary file; grep does not search binary files.", disp(p.Rel))), nil
		}
		col.add(searchBuffer(q, disp(p.Rel), doc.Content, col.keep(), nil))
		return Text(col.render(in.Pattern, arg)), nil
	}
	workers := walkWorkers()
	bufs := make([][]byte, workers)
	scratch := make([][]byte, workers)
	stats, err := walkTree(ctx, p, walkOptions{Workers: workers}, func(w int, dir *dirFD, e walkEntry) {
		if !e.Type.IsRegular() {
			return
		}
		if q.globs != nil && !matchAny(q.globs, relTo(p.Rel, e.Rel)) {
			return
		}
		col.searched.Add(1)
		content, skip := readForGrep(dir, e.Name, &bufs[w])
		switch skip {
		case skipNone:
		case skipLarge:
			col.large.Add(1)
			return
		default:
			col.unreadable.Add(1)
			return
		}
		if isBinary(content) {
			col.binary.Add(1)
			return
		}
		if h := searchBuffer(q, disp(e.Rel), content, col.keep(), &scratch[w]); h.count > 0 {
			col.add(h)
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("grep %s: %v", arg, err), nil
	}
	col.unreadable.Add(stats.Unreadable.Load())
	return Text(col.render(in.Pattern, arg)), nil
}

type skipReason int

const (
	skipNone skipReason = iota
	skipLarge
	skipUnreadable
)

// readForGrep reads the regular file name of dir into *buf (reused
// across files of one worker) and returns its content.
func readForGrep(dir *dirFD, name string, buf *[]byte) ([]byte, skipReason) {
	f, err := dir.openFile(name, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, skipUnreadable
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, skipUnreadable
	}
	size := fi.Size()
	if size > grepMaxFileSize {
		return nil, skipLarge
	}
	if int64(cap(*buf)) < size+1 {
		*buf = make([]byte, size+1+size/8)
	}
	b := (*buf)[:cap(*buf)]
	n := 0
	for {
		k, err := f.Read(b[n:])
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, skipUnreadable
		}
		if n == len(b) {
			// The file grew while we read it: take a bigger buffer.
			if int64(len(b)) > grepMaxFileSize {
				return nil, skipLarge
			}
			nb := make([]byte, 2*len(b))
			copy(nb, b)
			b, *buf = nb, nb
		}
	}
	return b[:n], skipNone
}

// resolveSearchPath admits arg (default: the work root) through the guard
// and stats it, for the tools that search below a path. A non-nil Result
// is the error answer for the model.
func (tc *ToolContext) resolveSearchPath(tool, arg string) (guard.Path, fs.FileInfo, *Result) {
	if arg == "" {
		arg = "."
	}
	p, err := tc.Resolve(arg)
	if err != nil {
		r := Errorf("%v", err)
		return p, nil, &r
	}
	st, err := statPath(p)
	if errors.Is(err, fs.ErrNotExist) {
		r := Errorf("path %q does not exist", arg)
		return p, nil, &r
	}
	if err != nil {
		r := Errorf("%s %s: %v", tool, arg, err)
		return p, nil, &r
	}
	return p, st, nil
}

// statPath stats an admitted path, reached from its root without
// following a symlink (beneath.go): the guard has resolved them all.
func statPath(p guard.Path) (fs.FileInfo, error) {
	dir, base, err := openParent(p)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := dir.openFile(base, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// relTo returns rel (below the boundary root) relative to the search
// directory dir (also below it), for matching globs.
func relTo(dir, rel string) string {
	if dir == "." || dir == "" {
		return rel
	}
	return strings.TrimPrefix(rel, dir+"/")
}
