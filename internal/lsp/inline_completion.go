package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/complete"
	"github.com/catbuddy/cb-ls/internal/config"
)

// textDocument/inlineCompletion (LSP 3.18): a completion at the cursor
// from the user's own model (internal/complete, docs/completions.md).
// Nothing of it runs on the keystroke path but Tracker.Changed (a
// mutex and a comparison in didChange). The request reads the buffer
// at the version the editor asked at; a newer keystroke in the same
// document answers it at once with an empty list and aborts its model
// request, as $/cancelRequest does with RequestCancelled.

// pinnedVersion is the context key of the version a completion request
// was sent at.
type pinnedVersion struct{}

// pinCompletion runs on the read loop, before the request leaves it:
// it notes the document's version then, so a didChange read after the
// request (the user typed on) is seen as superseding it.
func (s *Server) pinCompletion(ctx context.Context, raw jsonrpc2.RawMessage) context.Context {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ctx
	}
	if b, ok := s.overlay.Get(uri.URI(p.TextDocument.URI)); ok {
		return context.WithValue(ctx, pinnedVersion{}, b.Version())
	}
	return ctx
}

func noCompletion() *protocol.InlineCompletionList {
	return &protocol.InlineCompletionList{Items: []protocol.InlineCompletionItem{}}
}

func (s *Server) inlineCompletion(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var p protocol.InlineCompletionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	u := uri.URI(p.TextDocument.URI)
	b, ok := s.overlay.Get(u)
	if !ok || !b.InSync() {
		return noCompletion(), nil
	}
	pinned, isPinned := ctx.Value(pinnedVersion{}).(int32)
	if !isPinned {
		pinned = b.Version()
	}
	// A next edit that inserts at this cursor is the answer, without
	// asking the model again (a plain client's way to show it).
	if text, ok := s.nextEdit.atCursor(u, pinned, p.Position); ok {
		at := protocol.Range{Start: p.Position, End: p.Position}
		return &protocol.InlineCompletionList{Items: []protocol.InlineCompletionItem{{InsertText: protocol.String(text), Range: &at}}}, nil
	}
	cfg := s.completionConfig(b.Path)
	if !cfg.InlineCompletion.On() {
		return noCompletion(), nil
	}
	// From here a change to the document ends cctx.
	cctx, done := s.completer.Tracker.Begin(ctx, string(u))
	defer done()
	req, version := b.completionWindow(p.Position, s.PositionEncoding())
	if isPinned && version != pinned {
		return noCompletion(), nil
	}
	res, err := s.completer.Complete(cctx, complete.Input{
		Config: cfg, Request: req, Source: overlaySource{s.overlay}, Filter: complete.NewFilter(s.Guard().Roots()),
	})
	switch {
	case ctx.Err() != nil:
		return nil, protocol.ErrRequestCancelled
	case errors.Is(err, complete.ErrSuperseded), errors.Is(err, complete.ErrOff), errors.Is(err, complete.ErrExcluded):
		return noCompletion(), nil
	case err != nil:
		s.completionFailed(err)
		return noCompletion(), nil
	case res.Text == "" || b.Version() != version:
		return noCompletion(), nil
	}
	s.log.Debug("inline completion", "path", b.Path, "plan", res.Plan, "bytes", len(res.Text))
	at := protocol.Range{Start: p.Position, End: p.Position}
	return &protocol.InlineCompletionList{Items: []protocol.InlineCompletionItem{{
		InsertText: protocol.String(res.Text), Range: &at,
	}}}, nil
}

// completionConfig is the configuration for a completion in the file at
// path: the editor's settings over the config files of the workspace
// folder holding it (a project's only once trusted, as for runs).
func (s *Server) completionConfig(path string) config.Config {
	cfg := s.AgentConfig()
	roots := s.Guard().Roots()
	if len(roots) == 0 {
		return cfg.WithDefaults()
	}
	root := roots[0]
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rel, "..") {
			root = r
			break
		}
	}
	loaded, err := config.LoadConfig(root, cfg)
	if err != nil {
		s.log.Warn("completions: using the editor's settings only", "root", root, "error", err)
		return cfg.WithDefaults()
	}
	return loaded
}

// completionFailed logs a failed completion and tells the user once per
// distinct failure: a model that is down must not raise a message at
// every keystroke, nor fail silently.
func (s *Server) completionFailed(err error) {
	msg := "cb-ls: completions: " + err.Error()
	s.log.Warn("inline completion failed", "error", err)
	s.mu.Lock()
	told := s.completionErr == msg
	s.completionErr = msg
	s.mu.Unlock()
	if !told {
		s.showMessage(s.baseCtx, protocol.MessageTypeWarning, msg)
	}
}
