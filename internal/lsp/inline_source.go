package lsp

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/complete"
)

// What completions read of the open buffers (complete.Source): never a
// whole buffer, only a window around the cursor, a file's first KB and
// single lines, each read under the buffer's lock for microseconds.

// completionWindow reads the text around pos at the buffer's version:
// complete.PrefixBytes before and complete.SuffixBytes after.
func (b *Buffer) completionWindow(pos protocol.Position, enc protocol.PositionEncodingKind) (complete.Request, int32) {
	// Offset moves the text's finger: an exclusive lock, as a change takes.
	b.mu.Lock()
	defer b.mu.Unlock()
	off := b.text.Offset(pos, enc)
	start := max(0, off-complete.PrefixBytes)
	end := min(b.text.Len(), off+complete.SuffixBytes)
	prefix := b.text.slice(start, off)
	req := complete.Request{
		Doc:         complete.Doc{Key: string(b.URI), Path: b.Path, LanguageID: b.LanguageID, Size: b.text.Len()},
		Line:        int(pos.Line),
		Prefix:      string(prefix),
		PrefixStart: off - len(prefix),
		Suffix:      string(b.text.slice(off, end)),
		SuffixCut:   end < b.text.Len(),
	}
	return req, b.version
}

// overlaySource is the overlay as a complete.Source.
type overlaySource struct{ o *Overlay }

func (s overlaySource) Docs() []complete.Doc {
	s.o.mu.RLock()
	bufs := make([]*Buffer, 0, len(s.o.byURI))
	for _, b := range s.o.byURI {
		bufs = append(bufs, b)
	}
	s.o.mu.RUnlock()
	out := make([]complete.Doc, 0, len(bufs))
	for _, b := range bufs {
		b.mu.RLock()
		if !b.desynced {
			out = append(out, complete.Doc{Key: string(b.URI), Path: b.Path, LanguageID: b.LanguageID, Size: b.text.Len()})
		}
		b.mu.RUnlock()
	}
	return out
}

func (s overlaySource) Head(key string, n int) ([]byte, bool) {
	b, ok := s.o.Get(uri.URI(key))
	if !ok {
		return nil, false
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.text.slice(0, n), !b.desynced
}

func (s overlaySource) Line(key string, line int) (string, bool) {
	b, ok := s.o.Get(uri.URI(key))
	if !ok {
		return "", false
	}
	b.mu.Lock() // lineStart moves the finger
	defer b.mu.Unlock()
	start, _, _, ok := b.text.lineStart(line)
	if !ok || b.desynced {
		return "", false
	}
	end := min(b.text.Len(), start+4096)
	text := b.text.slice(start, end)
	for i, c := range text {
		if c == '\n' {
			text = text[:i]
			break
		}
	}
	if n := len(text); n > 0 && text[n-1] == '\r' {
		text = text[:n-1]
	}
	return string(text), true
}
