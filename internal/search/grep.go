package search

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// GrepQuery is a grep request as the model writes it; NewGrep checks it.
type GrepQuery struct {
	Pattern         string // Go RE2, or the text itself with Literal
	Literal         bool
	CaseInsensitive bool
	// Glob limits the search to matching files; Include is the same
	// (the name other agents' grep tools use), and only one may be set
	// unless both are equal.
	Glob, Include string
	Context       int    // lines around each match, 0 to GrepMaxContext
	OutputMode    string // "content" (""), "files_with_matches" or "count"
	Limit         int    // matches (content) or files shown; 0 for the default
	// IncludeIgnored searches what is left out by default: files that
	// .gitignore names, node_modules and lockfiles.
	IncludeIgnored bool
}

// Limits of a grep.
const (
	GrepDefaultMatches = 100
	GrepDefaultFiles   = 200
	GrepMaxLimit       = 5000
	GrepMaxContext     = 20
	GrepMaxLineLen     = 400
	grepMaxOutput      = 64 << 10 // bytes of output before the rest is only counted
	grepMaxFileSize    = 64 << 20 // larger files are skipped (and counted)
)

// Grep is a validated grep request, ready to run over a tree or a file.
type Grep struct {
	pattern string
	q       grepQuery
	// note is said before the result (a context clamped to its maximum).
	note string
	// includeIgnored and deps: what the walk leaves out (dependencies.go).
	includeIgnored, deps bool
	// pending, if set, is the run's view over the disk (pending.go).
	pending Pending
}

// grepQuery is what the search itself needs of a Grep.
type grepQuery struct {
	m       *lineMatcher
	globs   Globs // nil: every file
	context int
	mode    string
	limit   int
}

// NewGrep validates q; its errors are meant for the model as they are.
func NewGrep(in GrepQuery) (*Grep, error) {
	q := grepQuery{context: in.Context, mode: in.OutputMode}
	switch q.mode {
	case "":
		q.mode = "content"
	case "content", "files_with_matches", "count":
	default:
		return nil, fmt.Errorf("output_mode must be content, files_with_matches or count, not %q", in.OutputMode)
	}
	note := ""
	switch {
	case q.context < 0:
		return nil, fmt.Errorf("context must be between 0 and %d, not %d", GrepMaxContext, q.context)
	case q.context > GrepMaxContext:
		note = fmt.Sprintf("(context %d is over the maximum: %d lines are shown around each match)\n", q.context, GrepMaxContext)
		q.context = GrepMaxContext
	}
	if in.Limit < 0 {
		return nil, fmt.Errorf("limit must be positive, not %d", in.Limit)
	}
	q.limit = min(in.Limit, GrepMaxLimit)
	if q.limit == 0 {
		q.limit = GrepDefaultMatches
		if q.mode != "content" {
			q.limit = GrepDefaultFiles
		}
	}
	g := in.Glob
	if g != "" && in.Include != "" && g != in.Include {
		return nil, fmt.Errorf("give glob or include, not both")
	}
	if g == "" {
		g = in.Include
	}
	if g != "" {
		gs, err := CompileGlobs(g)
		if err != nil {
			return nil, err
		}
		q.globs = gs
	}
	m, err := newLineMatcher(in.Pattern, in.Literal, in.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	q.m = m
	return &Grep{pattern: in.Pattern, q: q, note: note, includeIgnored: in.IncludeIgnored, deps: in.IncludeIgnored || AsksForDependencies(g)}, nil
}

// File searches the content of one file, shown as path; where names
// what was searched in the output. A binary file is not searched.
func (g *Grep) File(path string, content []byte, where string) string {
	if safefile.HasNUL(content) {
		return fmt.Sprintf("%s is a binary file; grep does not search binary files.", path)
	}
	col := newGrepCollector(g.q)
	col.single = true
	col.searched.Add(1)
	col.add(searchBuffer(g.q, path, content, col.keep(), nil))
	return g.note + col.render(g.pattern, where)
}

// Tree searches every file below the directory p that a Walk reaches,
// in parallel; where names what was searched in the output. The error
// is the walk's (ctx's, when cancelled).
func (g *Grep) Tree(ctx context.Context, p guard.Path, disp Display, where string) (string, error) {
	q := g.q
	col := newGrepCollector(q)
	workers := walkWorkers()
	bufs := make([][]byte, workers)
	scratch := make([][]byte, workers)
	var matched atomic.Bool
	stats, err := Walk(ctx, p, Options{Workers: workers, NoIgnore: g.includeIgnored, SkipDependencies: !g.deps && !insideDependencies(p.Rel)}, func(w int, dir *safefile.Dir, e Entry) {
		if !e.Type.IsRegular() || replaced(g.pending, e.Rel) {
			return
		}
		if q.globs != nil && !q.globs.Match(relTo(p.Rel, e.Rel)) {
			return
		}
		col.searched.Add(1)
		content, mapped, skip := readForGrep(dir, e.Name, &bufs[w])
		switch skip {
		case skipNone:
		case skipLarge:
			col.large.Add(1)
			return
		default:
			col.unreadable.Add(1)
			return
		}
		if afterRead != nil {
			afterRead(e.Rel)
		}
		if !mapped {
			g.searchContent(col, content, false, &scratch[w], &matched, disp, e.Rel)
			return
		}
		// A mapped file truncated underneath faults past its new end.
		err := safefile.CatchFault(func() { g.searchContent(col, content, true, &scratch[w], &matched, disp, e.Rel) })
		safefile.Unmap(content)
		if err != nil {
			col.unreadable.Add(1)
		}
	})
	if err != nil {
		return "", err
	}
	g.searchPending(p, disp, col)
	col.unreadable.Add(stats.Unreadable.Load())
	col.deps = stats.Dependencies.Load()
	col.negated = q.globs.Negated()
	return g.note + col.render(g.pattern, where), nil
}

// afterRead, when set (by tests), is called between the read of a file
// and its search.
var afterRead func(rel string)

// searchContent searches one file's content (mapped, or read) and adds
// its matches to col. matched tells whether any file matched yet.
func (g *Grep) searchContent(col *grepCollector, content []byte, mapped bool, scratch *[]byte, matched *atomic.Bool, disp Display, rel string) {
	// A file with a NUL byte is binary and its matches are dropped. The
	// scan for one costs as much as a literal search, so it is done
	// after the search: for a file that matched, or while nothing has
	// (then the count of skipped binary files is shown). A large file is
	// first checked for one in its first bytes, where most binary files
	// show one, so that it is not searched at all (nor, when mapped,
	// read beyond them).
	if len(content) > binarySniff*8 && safefile.HasNUL(content[:binarySniff]) {
		col.binary.Add(1)
		return
	}
	if mapped {
		safefile.Prefault(content) // all of it is read now
	}
	h := searchBuffer(g.q, "", content, col.keep(), scratch)
	if h.count == 0 {
		if !matched.Load() && safefile.HasNUL(content) {
			col.binary.Add(1)
		}
		return
	}
	if safefile.HasNUL(content) {
		col.binary.Add(1)
		return
	}
	matched.Store(true)
	// The displayed path is made only for a file that matched: most do
	// not, and making it costs more than searching a small file.
	h.path = disp(rel)
	col.add(h)
}

// walkWorkers is the size of the search pool: one goroutine per CPU,
// and at least two so one slow file does not stall the walk.
func walkWorkers() int { return max(2, runtime.GOMAXPROCS(0)) }

// binarySniff is how many leading bytes of a large file are checked for
// a NUL byte before it is searched.
const binarySniff = 8 << 10

type skipReason int

const (
	skipNone skipReason = iota
	skipLarge
	skipUnreadable
)

// readForGrep reads the regular file name of dir into *buf (reused
// across files of one worker), or maps it when it is large (then the
// caller unmaps it), and returns its content.
func readForGrep(dir *safefile.Dir, name string, buf *[]byte) ([]byte, bool, skipReason) {
	content, mapped, err := dir.ReadMapped(name, *buf, grepMaxFileSize)
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, false, skipLarge
	case err != nil:
		return nil, false, skipUnreadable
	}
	if !mapped && cap(content) > cap(*buf) {
		*buf = content[:0]
	}
	return content, mapped, skipNone
}

// relTo returns rel (below the boundary root) relative to the search
// directory dir (also below it), for matching globs.
func relTo(dir, rel string) string {
	if dir == "." || dir == "" {
		return rel
	}
	return strings.TrimPrefix(rel, dir+"/")
}
