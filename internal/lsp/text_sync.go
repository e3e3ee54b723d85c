package lsp

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The text synchronisation notifications run in wire order on the read
// loop (see methodTable): they must be cheap and never call the client.

func (s *Server) didOpen(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	if u, lang, version, text, ok := fastDidOpen(raw); ok {
		b, err := s.overlay.open(u, lang, version, text)
		if err != nil {
			return nil, err
		}
		s.adoptSingleFileRoot(b.Path)
		return nil, nil
	}
	var p protocol.DidOpenTextDocumentParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	d := p.TextDocument
	b, err := s.overlay.Open(uri.URI(d.URI), string(d.LanguageID), d.Version, d.Text)
	if err != nil {
		return nil, err
	}
	s.adoptSingleFileRoot(b.Path)
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	if u, version, changes, ok := fastDidChange(raw); ok {
		s.nextEdit.before(u, changes)
		err := s.overlay.Change(u, version, changes, s.PositionEncoding())
		s.noteChange(u, changes)
		return nil, err
	}
	var p protocol.DidChangeTextDocumentParams
	if err := decodeParams(raw, &p); err != nil {
		// The change is lost; the buffer it was meant for no longer
		// matches the editor's.
		if u, ok := docURIOf(raw); ok {
			s.overlay.MarkDesynced(u)
		}
		return nil, err
	}
	u := uri.URI(p.TextDocument.URI)
	if bad, err := checkChanges(raw, p.ContentChanges); err != nil {
		// Apply the valid changes before the bad one, then stop there.
		if bad >= 0 {
			p.ContentChanges = p.ContentChanges[:bad]
		} else {
			p.ContentChanges = nil
		}
		s.nextEdit.before(u, p.ContentChanges)
		if cerr := s.overlay.Change(u, p.TextDocument.Version, p.ContentChanges, s.PositionEncoding()); cerr != nil {
			return nil, cerr
		}
		s.overlay.MarkDesynced(u)
		s.noteChange(u, p.ContentChanges)
		return nil, fmt.Errorf("didChange %s: %w; the buffer is now out of sync", u, err)
	}
	s.nextEdit.before(u, p.ContentChanges)
	err := s.overlay.Change(u, p.TextDocument.Version, p.ContentChanges, s.PositionEncoding())
	s.noteChange(u, p.ContentChanges)
	return nil, err
}

// noteChange records the edit in the one edit history and supersedes
// the document's completions in flight (complete.Tracker): a mutex and
// a comparison on the keystroke path.
func (s *Server) noteChange(u uri.URI, changes []protocol.TextDocumentContentChangeEvent) {
	line := -1
	if len(changes) > 0 {
		if ch, ok := changes[0].(*protocol.TextDocumentContentChangePartial); ok {
			line = int(ch.Range.Start.Line)
		}
	}
	s.completer.Tracker.Changed(string(u), line)
}

func (s *Server) didClose(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.completer.Tracker.Closed(string(p.TextDocument.URI))
	s.nextEdit.closed(uri.URI(p.TextDocument.URI))
	return nil, s.overlay.Close(uri.URI(p.TextDocument.URI))
}

// didSave changes nothing: the buffer already holds what was saved, and
// disk reads go to the disk.
func (s *Server) didSave(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	return nil, nil
}

// adoptSingleFileRoot gives a session without workspace folders a root:
// the directory of the first file opened. The guard then refuses anything
// outside it, and picks internal mode if that directory is sensitive (the
// home directory or /) and the mode is auto.
func (s *Server) adoptSingleFileRoot(path string) {
	s.mu.Lock()
	g := s.guard
	adopt := len(s.folders) == 0 && !s.single
	if adopt {
		s.single = true
	}
	s.mu.Unlock()
	if !adopt {
		return
	}
	dir := filepath.Dir(path)
	if err := g.SetRoots([]string{dir}); err != nil {
		s.log.Warn("single-file session: cannot use the file's directory as root", "dir", dir, "error", err)
		return
	}
	s.syncMode() // the folder's own configuration may name a mode
	s.log.Info("single-file session", "root", dir, "mode", g.Mode().String())
}
