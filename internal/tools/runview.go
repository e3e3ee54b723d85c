package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/search"
)

// A run whose changes wait for the user's review (internal/changeset)
// works in a view of its own: its edits land in a copy-on-write layer at
// once, its commands run over that layer, and the user's buffers and
// disk see none of it until the user keeps it. One ToolContext serves
// every run of a front end, so the view travels in the run's
// context.Context, as its FileStates and ledger do.

// RunView is a run's own view of the workspace.
type RunView struct {
	// ID names the run (its change set's run ID): the language servers
	// a headless session starts show one run's view at a time, and tell
	// runs apart by it.
	ID string
	// Workspace is what the run's tools read and write instead of the
	// ToolContext's: reads see the pending changes, writes become
	// pending.
	Workspace Workspace
	// Layer, if set, is the copy-on-write layer exec runs commands over
	// without a question (nil: the overlay is not available, and
	// commands that write are asked about as without a view).
	Layer Layer
	// Search, if set, returns the run's pending changes in one folder,
	// so that grep and glob see the run's view (search.Pending).
	Search func(root string) search.Pending
	// News, if set, returns what the user kept or discarded since it was
	// last asked ("" if nothing): it is added to the run's next tool
	// result, so the agent does not redo a discarded hunk.
	News func() string
	// Files, if set, lists the run's pending files (not the grouped
	// ignored outputs), so that the language servers a headless session
	// starts can be shown the run's view before each question.
	Files func() []ViewFile
}

// ViewFile is one file of a run's view that differs from the user's.
type ViewFile struct {
	Path    string // absolute
	Deleted bool   // the run deleted it (pending)
	// Read returns the run's content of the file (not for Deleted).
	Read func() ([]byte, error)
}

// Layer is a run's copy-on-write layer of the workspace folders, for
// exec (implemented by internal/changeset).
type Layer interface {
	// Prepare readies the layer of each folder in roots for one command
	// and returns them for sandbox.Request.Overlay: the editor's unsaved
	// buffers are put in it, so the command sees what the user sees plus
	// the run's changes. Collect must follow, whatever happened.
	Prepare(ctx context.Context, roots []string) ([]sandbox.OverlayLayer, error)
	// Collect is called after the command: what it created, changed or
	// deleted joins the run's pending changes.
	Collect(ctx context.Context) (LayerReport, error)
}

// LayerReport is what one command changed in the run's layer.
type LayerReport struct {
	// Summary ends the command's result ("" when it changed nothing):
	// "Pending the user's review: changed calc.go; created gen.go;
	// node_modules/ (1,234 files)".
	Summary string
	// Changed are the absolute paths the command created, changed or
	// deleted (the run reads them again before editing them).
	Changed []string
}

// BufferLister is a Workspace over an editor's buffers that can name
// the open ones (a Layer materialises those with unsaved text).
type BufferLister interface {
	OpenBuffers(ctx context.Context) []guard.Path
}

type runViewKey struct{}

// WithRunView returns ctx carrying the run's view.
func WithRunView(ctx context.Context, v RunView) context.Context {
	return context.WithValue(ctx, runViewKey{}, v)
}

// RunViewFrom returns the run's view in ctx, if it has one.
func RunViewFrom(ctx context.Context) (RunView, bool) {
	v, ok := ctx.Value(runViewKey{}).(RunView)
	return v, ok && v.Workspace != nil
}

// workspace is the Workspace the tools of the run in ctx read and write.
func (tc *ToolContext) workspace(ctx context.Context) Workspace {
	if v, ok := RunViewFrom(ctx); ok {
		return v.Workspace
	}
	return tc.Workspace
}

// pending reports whether the run's writes wait for the user's review.
func pending(ctx context.Context) bool {
	_, ok := RunViewFrom(ctx)
	return ok
}

// runNews is what the user did to the run's changes since the last
// tool result, in brackets, or "".
func runNews(ctx context.Context) string {
	v, ok := RunViewFrom(ctx)
	if !ok || v.News == nil {
		return ""
	}
	if n := v.News(); n != "" {
		return "[" + n + "]"
	}
	return ""
}

// searchView is the run's pending changes in root for grep and glob, or
// nil.
func searchView(ctx context.Context, root string) search.Pending {
	if v, ok := RunViewFrom(ctx); ok && v.Search != nil {
		return v.Search(root)
	}
	return nil
}

// pendingListNote is list_dir's line on the run's pending files below
// dir that the listing of the disk cannot show: those it created, and
// those it deleted (still listed above). "" when there are none.
func pendingListNote(v search.Pending, dir string, disp search.Display) string {
	if v == nil {
		return ""
	}
	var parts []string
	for _, f := range v.Files(dir) {
		if f.Created {
			parts = append(parts, "created "+disp(f.Rel))
		}
	}
	for _, rel := range v.Deleted(dir) {
		parts = append(parts, "deleted "+disp(rel))
	}
	if len(parts) == 0 {
		return ""
	}
	const most = 50
	if len(parts) > most {
		parts = append(parts[:most], fmt.Sprintf("and %d more", len(parts)-most))
	}
	return "(this run's changes, pending the user's review: " + strings.Join(parts, "; ") + ")"
}
