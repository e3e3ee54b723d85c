package main

import (
	"context"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// reviewWorkspace asks the user before each write (cb-ls run --review):
// it shows the change as a unified diff and applies it only on "y". Any
// other answer, or the end of input, rejects the change; the tool tells
// the model it was not applied.
type reviewWorkspace struct {
	tools.Workspace
	p *prompter
}

// Apply implements tools.Workspace.
func (w *reviewWorkspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	if w.p.before != nil {
		w.p.before()
	}
	from, to := "a/"+c.Path.Rel, "b/"+c.Path.Rel
	if c.Create {
		from = "/dev/null"
	}
	diff := udiff.Unified(from, to, string(c.Base.Content), string(c.After))
	question := fmt.Sprintf("\n%s\n%s", c.Label, diff)
	if !strings.HasSuffix(diff, "\n") {
		question += "\n"
	}
	question += fmt.Sprintf("Apply this change to %s? [y/N] ", c.Path.Rel)
	answer, err := w.p.ask(ctx, question)
	if err != nil {
		return tools.Document{}, fmt.Errorf("%w: no answer from the user (%v)", tools.ErrRejected, err)
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return w.Workspace.Apply(ctx, c)
	}
	return tools.Document{}, fmt.Errorf("%w: the user rejected the change to %s", tools.ErrRejected, c.Path.Rel)
}

// ApplyAll implements tools.MultiApplier: a multi-file change
// (apply_patch) is shown whole and asked about once; "y" applies it all
// or nothing through the disk workspace.
func (w *reviewWorkspace) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	if len(cs) == 1 {
		d, err := w.Apply(ctx, cs[0])
		if err != nil {
			return nil, err
		}
		return []tools.Document{d}, nil
	}
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	var question strings.Builder
	var names []string
	for _, c := range cs {
		from, to := "a/"+c.Path.Rel, "b/"+c.Path.Rel
		switch {
		case c.Create:
			from = "/dev/null"
		case c.Delete:
			to = "/dev/null"
		}
		diff := udiff.Unified(from, to, string(c.Base.Content), string(c.After))
		fmt.Fprintf(&question, "\n%s\n%s", c.Label, diff)
		if !strings.HasSuffix(diff, "\n") {
			question.WriteByte('\n')
		}
		names = append(names, c.Path.Rel)
	}
	list := strings.Join(names, ", ")
	fmt.Fprintf(&question, "Apply these changes to %s? [y/N] ", list)
	answer, err := w.p.ask(ctx, question.String())
	if err != nil {
		return nil, fmt.Errorf("%w: no answer from the user (%v)", tools.ErrRejected, err)
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return tools.ApplyAll(ctx, w.Workspace, cs)
	}
	return nil, fmt.Errorf("%w: the user rejected the changes to %s", tools.ErrRejected, list)
}
