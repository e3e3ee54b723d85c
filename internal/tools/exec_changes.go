package tools

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/search"
	"github.com/catbuddy/cb-ls/internal/shell"
)

// ExecChange is one workspace file a command created, changed or deleted.
type ExecChange struct {
	Path string // absolute
	Rel  string // relative to its workspace folder, slash-separated
	Kind string // "created", "changed" or "deleted"
	// RunsLater marks files whose content runs later outside any sandbox
	// (editor tasks, direnv, editor config): the user should look.
	RunsLater bool
}

// ExecChanges reports what one command changed in the workspace.
type ExecChanges struct {
	Command string
	Files   []ExecChange
}

// ExecChangeListener receives the changes of a command that could write
// the workspace (the editor refreshes buffers; an undo ledger records).
type ExecChangeListener func(ctx context.Context, c ExecChanges)

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
	// kept copies (exec_prior.go) and copy says so; otherwise copy says
	// why there is none.
	prior []byte
	copy  copyState
}

// rootScan is what a scan met under one workspace folder.
type rootScan struct {
	base  string // absolute directory the rels are relative to
	files []scanFile
}

// workspaceScan is one scan of every workspace folder. It is a list,
// not a map: a write command's before and after scans of 20,000 files
// may add 150 ms, and per-file map inserts cost as much as the fstatat
// calls (diffScans indexes one side once).
type workspaceScan struct {
	roots []rootScan
	// err is why a walk stopped short (cancelled, a folder that could not
	// be opened): every file it missed would look created afterwards.
	err error
}

// len is the number of files the scan met.
func (s workspaceScan) len() int {
	n := 0
	for _, r := range s.roots {
		n += len(r.files)
	}
	return n
}

// scanChunk is how many files a worker collects in one allocation.
const scanChunk = 1024

// scanRoot is one tree a scan walks, and the folder its paths are
// reported relative to.
type scanRoot struct {
	start guard.Path
}

// scanRoots are the workspace folders, plus the internal workspace when
// the work root lies in .catbuddy/ (walks never enter .catbuddy/).
func (tc *ToolContext) scanRoots() []scanRoot {
	var out []scanRoot
	for _, r := range tc.Guard.Roots() {
		out = append(out, scanRoot{start: guard.Path{Abs: r, Root: r, Rel: "."}})
	}
	if wr := tc.WorkRoot(); wr != "" && strings.Contains(filepath.ToSlash(wr), "/"+guard.StateDir+"/") {
		if p, err := tc.Resolve("."); err == nil {
			out = append(out, scanRoot{start: p})
		}
	}
	return out
}

// scanWorkspace stamps every file a walk reaches (honouring .gitignore,
// skipping .git/ and .catbuddy/), plus the files that run later even
// where they are ignored, so a change to them is always seen. With keep,
// it also copies the content of regular files within keep's budget
// (the content before a write command, for the run's undo).
func scanWorkspace(ctx context.Context, roots []scanRoot, keep *copyBudget) workspaceScan {
	var out workspaceScan
	for _, r := range roots {
		// Chunks per worker: nothing shared on the hot path, and no slice
		// regrown and copied as it fills.
		parts := make([][][]scanFile, runtime.GOMAXPROCS(0))
		_, err := search.Walk(ctx, r.start, search.Options{Workers: len(parts)}, func(worker int, dir *safefile.Dir, e search.Entry) {
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
			out.err = fmt.Errorf("scan %s: %w", r.start.Abs, err)
		}
		rs := rootScan{base: r.start.Root}
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
			if f, ok := probeFile(rs.base, search.RelJoin(r.start.Rel, rel), keep); ok {
				rs.files = append(rs.files, f)
			}
		}
		out.roots = append(out.roots, rs)
	}
	return out
}

// scanChange is one difference between two scans, with the file as the
// earlier scan met it (zero for a created file).
type scanChange struct {
	ExecChange
	before scanFile
}

// diffScans lists what changed between two scans of the same roots,
// sorted by path; rel renders a path for the model. A file met twice
// (a runs-later probe the walk also met) counts once.
func diffScans(before, after workspaceScan, rel func(string) string) []scanChange {
	var out []scanChange
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
				out = append(out, scanChange{ExecChange: ExecChange{Path: abs(f.rel), Kind: "created"}})
				index[f.rel] = -1 // a duplicate is not created twice
			case j < 0 || seen[j]:
			case f.st != b.files[j].st:
				out = append(out, scanChange{ExecChange: ExecChange{Path: abs(f.rel), Kind: "changed"}, before: b.files[j]})
				seen[j] = true
			default:
				seen[j] = true
			}
		}
		for j, f := range b.files {
			if !seen[j] && index[f.rel] == int32(j) {
				out = append(out, scanChange{ExecChange: ExecChange{Path: abs(f.rel), Kind: "deleted"}, before: f})
			}
		}
	}
	for i := range out {
		out[i].Rel = rel(out[i].Path)
		out[i].RunsLater = shell.RunsLater(out[i].Rel)
	}
	slices.SortFunc(out, func(a, b scanChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// probeFile stamps the file rel (slash path below base), and copies it
// within keep's budget; false if it is missing or a directory.
func probeFile(base, rel string, keep *copyBudget) (scanFile, bool) {
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

// renderChanges is the report appended to the command's output.
func renderChanges(files []ExecChange) string {
	if len(files) == 0 {
		return "Workspace files changed by the command: none.\n"
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
	return b.String()
}

// reportChanges scans the workspace again after a command that could
// write it, drops the FileStates of what changed (so the model reads
// those files again), records the run's undo, tells the listener and
// renders the report.
func (tc *ToolContext) reportChanges(ctx context.Context, command string, before workspaceScan) string {
	after := scanWorkspace(ctx, tc.scanRoots(), nil)
	changes := diffScans(before, after, tc.relForReport)
	states := tc.FileStates(ctx)
	ledger := filestate.LedgerFromContext(ctx)
	files := make([]ExecChange, len(changes))
	for i, c := range changes {
		files[i] = c.ExecChange
		states.Drop(c.Path)
		if ledger != nil {
			recordForUndo(ledger, c)
		}
	}
	if len(files) > 0 && tc.OnExecChanges != nil {
		tc.OnExecChanges(ctx, ExecChanges{Command: command, Files: files})
	}
	return renderChanges(files)
}

// relForReport renders an absolute workspace path relative to its
// folder (the work root first).
func (tc *ToolContext) relForReport(abs string) string {
	roots := append([]string{tc.WorkRoot()}, tc.Guard.Roots()...)
	for _, r := range roots {
		if r == "" {
			continue
		}
		if rel, err := filepath.Rel(r, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}
