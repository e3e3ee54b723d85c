package lspclient

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// Checks returns the client as the tools' source of diagnostics: an
// edit's result names what it broke, and the diagnostics tool lists the
// run's files, as the servers see the view of the run in ctx. A nil
// client checks nothing, and says so for the files of a language a
// build checks (tools.UncheckedError).
func (c *Client) Checks() tools.DiagnosticsSource { return checks{c} }

type checks struct{ c *Client }

var (
	_ tools.DiagnosticsChecker = checks{}
	_ tools.DiagnosticsKnower  = checks{}
	_ tools.DiagnosticsOfferer = checks{}
	_ tools.ContentDiagnostics = checks{}
)

// ChecksAnything implements tools.DiagnosticsOfferer.
func (k checks) ChecksAnything() bool { return k.c != nil }

// Diagnostics implements tools.DiagnosticsSource: path's diagnostics
// from its server, once the server has loaded its project and been shown
// the view of the run in ctx, and once they have settled. A file the
// server does not have yet is read from the disk.
func (k checks) Diagnostics(ctx context.Context, path string) ([]tools.Diagnostic, error) {
	return k.diagnostics(ctx, path, nil)
}

// DiagnosticsOf implements tools.ContentDiagnostics: path's diagnostics
// with content, the file as the run has it, before or after an edit.
func (k checks) DiagnosticsOf(ctx context.Context, path string, content []byte) ([]tools.Diagnostic, error) {
	if content == nil {
		content = []byte{}
	}
	return k.diagnostics(ctx, path, content)
}

func (k checks) diagnostics(ctx context.Context, path string, content []byte) ([]tools.Diagnostic, error) {
	c := k.c
	if c == nil {
		return nil, uncheckedLanguage(path)
	}
	name := c.serverFor(path)
	if name == "" {
		return nil, uncheckedLanguage(path)
	}
	s, err := c.get(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, uncheckedServer(name, path, err)
	}
	// Loaded first: a document opened while the server loads would be
	// read as settled before the server looked at it.
	c.awaitReady(ctx, s)
	leave, deleted, err := c.enterView(ctx, s)
	if err != nil {
		return nil, err
	}
	defer leave()
	if slices.Contains(deleted, path) {
		return nil, nil
	}
	if content == nil && !s.isOpen(path) {
		if content, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("%w: %s cannot be read: %v", tools.ErrNoDiagnostics, c.display(path), err)
		}
	}
	if content != nil {
		if _, err := s.open(ctx, path, content); err != nil {
			return nil, uncheckedServer(name, path, err)
		}
	}
	if err := s.failed(); err != nil {
		return nil, uncheckedServer(name, path, err)
	}
	return s.settled(ctx, path)
}

// OpenFiles implements tools.DiagnosticsSource: the pending files of the
// run in ctx that a server checks, and the files the servers have open
// (those the run read or asked about), sorted.
func (k checks) OpenFiles(ctx context.Context) []string {
	c := k.c
	if c == nil {
		return nil
	}
	var out []string
	if v, ok := tools.RunViewFrom(ctx); ok && v.Files != nil {
		for _, f := range v.Files() {
			if !f.Deleted && c.serverFor(f.Path) != "" {
				out = append(out, f.Path)
			}
		}
	}
	c.mu.Lock()
	started := make([]*server, 0, len(c.started))
	for _, s := range c.started {
		started = append(started, s)
	}
	c.mu.Unlock()
	for _, s := range started {
		s.mu.Lock()
		for p := range s.docs {
			out = append(out, p)
		}
		s.mu.Unlock()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Checker implements tools.DiagnosticsChecker: the server that checks
// path ("gopls"), or "".
func (k checks) Checker(_ context.Context, path string) string {
	if k.c == nil {
		return ""
	}
	return k.c.serverFor(path)
}

// Known implements tools.DiagnosticsKnower: the diagnostics of each of
// paths a running server has open, in the view of the run in ctx. A
// document that did not change since its last check answers at once.
func (k checks) Known(ctx context.Context, paths []string) map[string][]tools.Diagnostic {
	c := k.c
	if c == nil {
		return nil
	}
	out := map[string][]tools.Diagnostic{}
	for _, p := range paths {
		c.mu.Lock()
		s := c.started[c.serverFor(p)]
		c.mu.Unlock()
		if s == nil {
			continue
		}
		if _, open := s.known(p); !open {
			continue
		}
		if ds, err := k.Diagnostics(ctx, p); err == nil {
			out[p] = ds
		}
	}
	return out
}
