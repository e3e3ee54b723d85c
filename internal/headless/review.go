package headless

import (
	"context"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/shell"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// reviewWorkspace asks the user before each write (cb-ls run on a
// terminal, or --review): it shows the change as a unified diff and
// applies it on "y"; "a" applies it and every later edit of this run
// without asking, except a file that runs later, which is always asked
// about. Any other answer, or the end of input, rejects the change; the
// tool tells the model it was not applied.
type reviewWorkspace struct {
	tools.Workspace
	p *prompter

	all bool // "a" was answered; guarded by p.mu
}

// reviewChoices is the answer line of every edit question.
const reviewChoices = "[y/N/a] (a = yes to every edit of this run; files that run later are still asked about)"

// Apply implements tools.Workspace.
func (w *reviewWorkspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	docs, err := w.ApplyAll(ctx, []tools.Change{c})
	if err != nil {
		return tools.Document{}, err
	}
	return docs[0], nil
}

// ApplyAll implements tools.MultiApplier: a multi-file change
// (apply_patch) is shown whole and asked about once; "y" applies it all
// or nothing through the disk workspace.
func (w *reviewWorkspace) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	var names, later []string
	for _, c := range cs {
		names = append(names, diff.QuoteName(c.Path.Rel))
		if shell.RunsLater(c.Path.Rel) {
			later = append(later, diff.QuoteName(c.Path.Rel))
		}
	}
	list := strings.Join(names, ", ")
	if w.all && len(later) == 0 {
		return tools.ApplyAll(ctx, w.Workspace, cs)
	}
	var question strings.Builder
	for _, c := range cs {
		from, to := "a/"+diff.QuoteName(c.Path.Rel), "b/"+diff.QuoteName(c.Path.Rel)
		switch {
		case c.Create:
			from = "/dev/null"
		case c.Delete:
			to = "/dev/null"
		}
		unified := udiff.Unified(from, to, string(c.Base.Content), string(c.After))
		fmt.Fprintf(&question, "\n%s\n%s", diff.QuoteName(c.Label), unified)
		if !strings.HasSuffix(unified, "\n") {
			question.WriteByte('\n')
		}
	}
	if len(later) > 0 {
		fmt.Fprintf(&question, "%s %s a file that runs later, outside the sandbox (git, direnv, the editor or CI runs it).\n",
			strings.Join(later, ", "), isAre(len(later)))
	}
	if len(cs) == 1 {
		fmt.Fprintf(&question, "Apply this change to %s? %s ", list, reviewChoices)
	} else {
		fmt.Fprintf(&question, "Apply these changes to %s? %s ", list, reviewChoices)
	}
	answer, err := w.p.ask(ctx, question.String())
	if err != nil {
		return nil, fmt.Errorf("%w: no answer from the user (%v)", tools.ErrRejected, err)
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "a", "all":
		w.all = true
		return tools.ApplyAll(ctx, w.Workspace, cs)
	case "y", "yes":
		return tools.ApplyAll(ctx, w.Workspace, cs)
	}
	if len(cs) == 1 {
		return nil, fmt.Errorf("%w: the user rejected the change to %s", tools.ErrRejected, list)
	}
	return nil, fmt.Errorf("%w: the user rejected the changes to %s", tools.ErrRejected, list)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
