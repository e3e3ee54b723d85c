package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/catbuddy/cb-ls/tools"
)

// reviewWorkspace asks the user before each write (cb-ls run --review):
// it shows the change as a unified diff and applies it only on "y". Any
// other answer, or the end of input, rejects the change; the tool tells
// the model it was not applied.
type reviewWorkspace struct {
	tools.Workspace
	in     *bufio.Reader
	out    io.Writer
	before func() // clears the progress line before asking

	mu sync.Mutex // one question at a time
}

// Apply implements tools.Workspace.
func (w *reviewWorkspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.before != nil {
		w.before()
	}
	from, to := "a/"+c.Path.Rel, "b/"+c.Path.Rel
	if c.Create {
		from = "/dev/null"
	}
	diff := udiff.Unified(from, to, string(c.Base.Content), string(c.After))
	fmt.Fprintf(w.out, "\n%s\n%s", c.Label, diff)
	if !strings.HasSuffix(diff, "\n") {
		fmt.Fprintln(w.out)
	}
	fmt.Fprintf(w.out, "Apply this change to %s? [y/N] ", c.Path.Rel)
	answer, err := w.readLine(ctx)
	if err != nil {
		fmt.Fprintln(w.out)
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
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.before != nil {
		w.before()
	}
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
		fmt.Fprintf(w.out, "\n%s\n%s", c.Label, diff)
		if !strings.HasSuffix(diff, "\n") {
			fmt.Fprintln(w.out)
		}
		names = append(names, c.Path.Rel)
	}
	list := strings.Join(names, ", ")
	fmt.Fprintf(w.out, "Apply these changes to %s? [y/N] ", list)
	answer, err := w.readLine(ctx)
	if err != nil {
		fmt.Fprintln(w.out)
		return nil, fmt.Errorf("%w: no answer from the user (%v)", tools.ErrRejected, err)
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return tools.ApplyAll(ctx, w.Workspace, cs)
	}
	return nil, fmt.Errorf("%w: the user rejected the changes to %s", tools.ErrRejected, list)
}

// readLine reads one answer, giving up when ctx ends (Ctrl-C while the
// question is open).
func (w *reviewWorkspace) readLine(ctx context.Context) (string, error) {
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := w.in.ReadString('\n')
		if err == io.EOF && s != "" {
			err = nil
		}
		ch <- line{s, err}
	}()
	select {
	case l := <-ch:
		return l.s, l.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
