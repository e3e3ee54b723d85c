package headless

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/shell"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// editWorkspace picks how cb-ls run writes: --yes writes every edit and
// notes the files that run later; a terminal (or --review) asks before
// each edit; otherwise nobody can be asked and every edit is refused,
// as Claude Code's -p, codex exec and Gemini CLI's non-interactive mode
// refuse edits unless the user opted in.
func editWorkspace(o Options, terminal bool, p *prompter) tools.Workspace {
	disk := tools.DiskWorkspace{}
	switch {
	case o.Yes:
		return &yesWorkspace{Workspace: disk}
	case o.Review || terminal:
		return &reviewWorkspace{Workspace: disk, p: p}
	}
	return noTerminalWorkspace{Workspace: disk}
}

// errEditNoTerminal is what the model hears for an edit nobody could
// be asked about.
var errEditNoTerminal = fmt.Errorf("%w: cb-ls run has no terminal to ask on; rerun with --yes to allow edits", tools.ErrRejected)

// noTerminalWorkspace refuses every write: cb-ls run without a terminal
// and without --yes. Reads go to the disk.
type noTerminalWorkspace struct{ tools.Workspace }

// Apply implements tools.Workspace.
func (noTerminalWorkspace) Apply(context.Context, tools.Change) (tools.Document, error) {
	return tools.Document{}, errEditNoTerminal
}

// ApplyAll implements tools.MultiApplier.
func (noTerminalWorkspace) ApplyAll(context.Context, []tools.Change) ([]tools.Document, error) {
	return nil, errEditNoTerminal
}

// yesWorkspace writes every edit (--yes) and keeps the files written
// that run later, for the summary on stderr: nobody was asked about
// them, so the user must at least be told.
type yesWorkspace struct {
	tools.Workspace

	mu    sync.Mutex
	later []string
}

// Apply implements tools.Workspace.
func (w *yesWorkspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	d, err := w.Workspace.Apply(ctx, c)
	if err == nil {
		w.note(c)
	}
	return d, err
}

// ApplyAll implements tools.MultiApplier.
func (w *yesWorkspace) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	docs, err := tools.ApplyAll(ctx, w.Workspace, cs)
	for i := range docs { // the changes that landed, also before a failure
		w.note(cs[i])
	}
	return docs, err
}

func (w *yesWorkspace) note(c tools.Change) {
	if !shell.RunsLater(c.Path.Rel) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if name := diff.QuoteName(c.Path.Rel); !slices.Contains(w.later, name) {
		w.later = append(w.later, name)
	}
}

// summary names the files written that run later, if any.
func (w *yesWorkspace) summary(out io.Writer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.later) == 0 {
		return
	}
	fmt.Fprintf(out, "cb-ls run: --yes wrote files that run later, outside the sandbox (git, direnv, the editor or CI runs them); check them before they run: %s\n",
		strings.Join(w.later, ", "))
}
