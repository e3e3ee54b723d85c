package lspclient

import (
	"context"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Workspace returns ws with every change it makes told to the language
// servers, so that their answers after an edit see the edit.
func (c *Client) Workspace(ws tools.Workspace) tools.Workspace {
	if c == nil {
		return ws
	}
	return &syncedWorkspace{ws: ws, c: c}
}

type syncedWorkspace struct {
	ws tools.Workspace
	c  *Client
}

var (
	_ tools.Workspace    = (*syncedWorkspace)(nil)
	_ tools.MultiApplier = (*syncedWorkspace)(nil)
)

func (w *syncedWorkspace) Read(ctx context.Context, p guard.Path) (tools.Document, error) {
	return w.ws.Read(ctx, p)
}

func (w *syncedWorkspace) Apply(ctx context.Context, ch tools.Change) (tools.Document, error) {
	doc, err := w.ws.Apply(ctx, ch)
	if err == nil {
		w.changed(ctx, ch, doc)
	}
	return doc, err
}

func (w *syncedWorkspace) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	docs, err := tools.ApplyAll(ctx, w.ws, cs)
	for i, d := range docs {
		w.changed(ctx, cs[i], d)
	}
	return docs, err
}

func (w *syncedWorkspace) changed(ctx context.Context, ch tools.Change, doc tools.Document) {
	content := doc.Content
	if content == nil && !ch.Delete {
		content = ch.After
	}
	w.c.Changed(context.WithoutCancel(ctx), ch.Path.Abs, content, ch.Delete)
}
