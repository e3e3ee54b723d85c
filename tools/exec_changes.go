package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/filestate"
	"github.com/catbuddy/cb-ls/guard"
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

// workspaceScan maps absolute paths to stamps.
type workspaceScan map[string]fileStamp

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
// where they are ignored, so a change to them is always seen.
func scanWorkspace(ctx context.Context, roots []scanRoot) workspaceScan {
	out := workspaceScan{}
	for _, r := range roots {
		// One map per worker: no lock on the hot path.
		parts := make([]map[string]fileStamp, runtime.GOMAXPROCS(0))
		_, _ = walkTree(ctx, r.start, walkOptions{Workers: len(parts)}, func(worker int, dir *dirFD, e walkEntry) {
			if e.Type.IsDir() {
				return
			}
			st, ok := dir.stamp(e.Name)
			if !ok {
				return
			}
			m := parts[worker]
			if m == nil {
				m = map[string]fileStamp{}
				parts[worker] = m
			}
			m[filepath.Join(r.start.Root, filepath.FromSlash(e.Rel))] = st
		})
		for _, m := range parts {
			for k, v := range m {
				out[k] = v
			}
		}
		for _, rel := range runsLaterProbes {
			p := filepath.Join(r.start.Abs, filepath.FromSlash(rel))
			if st, ok := stampPath(p); ok {
				out[p] = st
			}
		}
	}
	return out
}

// diffScans lists what changed between two scans, sorted by path; rel
// renders a path for the model.
func diffScans(before, after workspaceScan, rel func(string) string) []ExecChange {
	var out []ExecChange
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, ExecChange{Path: p, Kind: "created"})
		case a != b:
			out = append(out, ExecChange{Path: p, Kind: "changed"})
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, ExecChange{Path: p, Kind: "deleted"})
		}
	}
	for i := range out {
		out[i].Rel = rel(out[i].Path)
		out[i].RunsLater = RunsLater(out[i].Rel)
	}
	slices.SortFunc(out, func(a, b ExecChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// runsLaterProbes are checked after every writing command even where a
// .gitignore hides them (.envrc usually is): a change to them must be
// flagged. Directories are probed by their usual files.
var runsLaterProbes = append([]string{".vscode/tasks.json", ".vscode/launch.json", ".vscode/settings.json"}, runsLaterFiles...)

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
// those files again), tells the listener and renders the report.
func (tc *ToolContext) reportChanges(ctx context.Context, command string, before workspaceScan) string {
	after := scanWorkspace(ctx, tc.scanRoots())
	files := diffScans(before, after, tc.relForReport)
	states := tc.FileStates(ctx)
	ledger := filestate.LedgerFromContext(ctx)
	for _, f := range files {
		states.Drop(f.Path)
		if ledger == nil {
			continue
		}
		// The run's undo: a created file is simply deleted again. The scan
		// keeps metadata, not content, so a changed or deleted file is
		// restorable only from an earlier record of the run (a file tool's
		// write); otherwise the undo names it.
		if f.Kind == "created" {
			ledger.RecordPrior(f.Path, nil, false)
		} else {
			ledger.RecordUnrestorable(f.Path)
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
