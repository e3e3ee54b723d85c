// Package snapshot is the workspace as the exec tool sees it around a
// command that may write: a scan of every file's stamp (size, mtime,
// inode, mode) before and after, optionally with copies of the content
// before, and the diff of the two. The diff is what the command changed:
// it is reported to the model, dropped from the run's FileStates, and
// recorded in the run's undo ledger.
package snapshot

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/search"
	"github.com/catbuddy/cb-ls/internal/shell"
)

// Change is one workspace file a command created, changed or deleted.
type Change struct {
	Path string // absolute
	Rel  string // relative to its workspace folder, slash-separated
	Kind string // "created", "changed" or "deleted"
	// RunsLater marks files whose content runs later outside any sandbox
	// (editor tasks, direnv, editor config): the user should look.
	RunsLater bool
}

// fileStamp is what a scan keeps per file: enough to see a change
// without reading content.
type fileStamp struct {
	size  int64
	mtime int64
	ino   uint64
	mode  uint32
}

// scanFile is one file a scan met.
type scanFile struct {
	rel string // slash path relative to its rootScan's base
	st  fileStamp
	// prior is the file's content before a write command, when the scan
	// kept copies (prior.go) and copy says so; otherwise copy says
	// why there is none.
	prior []byte
	copy  copyState
}

// rootScan is what a scan met under one workspace folder.
type rootScan struct {
	base  string // absolute directory the rels are relative to
	files []scanFile
}

// Scan is one scan of every workspace folder. It is a list, not a map: a write command's before and after scans of 20,000 files
// may add 150 ms, and per-file map inserts cost as much as the fstatat
// calls (Diff indexes one side once).
type Scan struct {
	roots []rootScan
	// err is why a walk stopped short (cancelled, a folder that could not
	// be opened): every file it missed would look created afterwards.
	err error
	// taken is when the scan ended: just before the command it precedes.
	taken time.Time
}

// Taken is when the scan ended.
func (s Scan) Taken() time.Time { return s.taken }

// Err is why a walk stopped short, or nil when the scan met every file.
func (s Scan) Err() error { return s.err }

// scanChunk is how many files a worker collects in one allocation.
const scanChunk = 1024

// Take stamps every file a walk under roots reaches (honouring
// .gitignore, skipping .git/ and .catbuddy/; each root's paths relative
// to its Root), plus the files that run later even where they are
// ignored, so a change to them is always seen. With keep,
// it also copies the content of regular files within keep's budget
// (the content before a write command, for the run's undo).
func Take(ctx context.Context, roots []guard.Path, keep *Budget) Scan {
	return take(ctx, roots, keep, nil)
}

// take is Take, telling ignored (if set) each entry a .gitignore hides.
func take(ctx context.Context, roots []guard.Path, keep *Budget, ignored func(root guard.Path, e search.Entry)) Scan {
	var out Scan
	for _, r := range roots {
		// Chunks per worker: nothing shared on the hot path, and no slice
		// regrown and copied as it fills.
		parts := make([][][]scanFile, runtime.GOMAXPROCS(0))
		opt := search.Options{Workers: len(parts)}
		if ignored != nil {
			opt.Ignored = func(e search.Entry) { ignored(r, e) }
		}
		_, err := search.Walk(ctx, r, opt, func(worker int, dir *safefile.Dir, e search.Entry) {
			if e.Type.IsDir() {
				return
			}
			f := scanFile{rel: e.Rel}
			var ok bool
			if keep != nil && e.Type.IsRegular() {
				f.st, f.prior, f.copy, ok = copyFile(dir, e.Name, keep)
			} else {
				f.st, ok = stampIn(dir, e.Name)
				if keep != nil {
					f.copy = notRegular
				}
			}
			if !ok {
				return
			}
			cs := parts[worker]
			if len(cs) == 0 || len(cs[len(cs)-1]) == cap(cs[len(cs)-1]) {
				cs = append(cs, make([]scanFile, 0, scanChunk))
				parts[worker] = cs
			}
			cs[len(cs)-1] = append(cs[len(cs)-1], f)
		})
		if err != nil && out.err == nil {
			out.err = fmt.Errorf("scan %s: %w", r.Abs, err)
		}
		rs := rootScan{base: r.Root}
		n := 0
		for _, cs := range parts {
			for _, c := range cs {
				n += len(c)
			}
		}
		rs.files = make([]scanFile, 0, n+len(runsLaterProbes))
		for _, cs := range parts {
			for _, c := range cs {
				rs.files = append(rs.files, c...)
			}
		}
		for _, rel := range runsLaterProbes {
			if f, ok := probeFile(rs.base, search.RelJoin(r.Rel, rel), keep); ok {
				rs.files = append(rs.files, f)
			}
		}
		out.roots = append(out.roots, rs)
	}
	out.taken = fsNow()
	return out
}

// Changed is one difference between two scans, with the file as the
// earlier scan met it (zero for a created file).
type Changed struct {
	Change
	before scanFile
}

// Diff lists what changed between two scans of the same roots,
// sorted by path; rel renders a path for the model. A file met twice
// (a runs-later probe the walk also met) counts once.
func Diff(before, after Scan, rel func(string) string) []Changed {
	var out []Changed
	for i := range min(len(before.roots), len(after.roots)) {
		b, a := before.roots[i], after.roots[i]
		index := make(map[string]int32, len(b.files))
		for j, f := range b.files {
			if _, dup := index[f.rel]; !dup {
				index[f.rel] = int32(j)
			}
		}
		seen := make([]bool, len(b.files))
		abs := func(r string) string { return filepath.Join(a.base, filepath.FromSlash(r)) }
		for _, f := range a.files {
			j, ok := index[f.rel]
			switch {
			case !ok:
				out = append(out, Changed{Change: Change{Path: abs(f.rel), Kind: "created"}})
				index[f.rel] = -1 // a duplicate is not created twice
			case j < 0 || seen[j]:
			case f.st != b.files[j].st:
				out = append(out, Changed{Change: Change{Path: abs(f.rel), Kind: "changed"}, before: b.files[j]})
				seen[j] = true
			default:
				seen[j] = true
			}
		}
		for j, f := range b.files {
			if !seen[j] && index[f.rel] == int32(j) {
				out = append(out, Changed{Change: Change{Path: abs(f.rel), Kind: "deleted"}, before: f})
			}
		}
	}
	for i := range out {
		out[i].Rel = rel(out[i].Path)
		out[i].RunsLater = shell.RunsLater(out[i].Rel)
	}
	slices.SortFunc(out, func(a, b Changed) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// probeFile stamps the file rel (slash path below base), and copies it
// within keep's budget; false if it is missing or a directory.
func probeFile(base, rel string, keep *Budget) (scanFile, bool) {
	st, ok := stampPath(filepath.Join(base, filepath.FromSlash(rel)))
	if !ok {
		return scanFile{}, false
	}
	f := scanFile{rel: rel, st: st}
	if keep == nil {
		return f, true
	}
	f.copy = unreadable
	dir, err := safefile.OpenBeneath(base, path.Dir(rel))
	if err != nil {
		return f, true
	}
	defer dir.Close()
	if st, prior, c, ok := copyFile(dir, path.Base(rel), keep); ok {
		f.st, f.prior, f.copy = st, prior, c
	}
	return f, true
}

// runsLaterProbes are checked after every writing command even where a
// .gitignore hides them.
var runsLaterProbes = shell.RunsLaterProbes()

// maxReportedChanges bounds the list in a result; the listener gets all.
const maxReportedChanges = 100

// Render is the report appended to the command's output: the files
// changed, and a line for the ignored ones written (dist/).
func Render(files []Change, ig Ignored) string {
	ignored := ig.render()
	switch {
	case len(files) == 0 && ignored == "":
		return "Workspace files changed by the command: none.\n"
	case len(files) == 0:
		return "Workspace files changed by the command: none but " + ignored + ".\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Workspace files changed by the command (%d; read them again before editing them):\n", len(files))
	for i, f := range files {
		if i == maxReportedChanges {
			fmt.Fprintf(&b, "  … and %d more\n", len(files)-i)
			break
		}
		fmt.Fprintf(&b, "  %-8s %s", f.Kind, f.Rel)
		if f.RunsLater {
			b.WriteString("  (runs later outside any sandbox: the user should review it)")
		}
		b.WriteByte('\n')
	}
	if ignored != "" {
		fmt.Fprintf(&b, "Also %s.\n", ignored)
	}
	return b.String()
}
