package lsp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// Buffer is one document the editor has open: its text and version as of
// the last didOpen/didChange. Read it through Snapshot.
type Buffer struct {
	URI        uri.URI
	Path       string // real absolute path (symlinks resolved), the key tools use
	LanguageID string

	mu      sync.RWMutex
	version int32
	text    *Text
	// desynced is set when a didChange could not be applied: the text no
	// longer matches the editor's, so it must not be read or edited (an
	// edit computed from it would land at the wrong place). A full-text
	// change or a reopen heals it.
	desynced bool
	// reloadBy, when set, is until when a read waits for the editor to
	// reload this buffer after a command changed its file (reload_wait.go);
	// the editor's next change clears it.
	reloadBy time.Time
}

// awaitReload sets (or, with the zero time, clears) the reload deadline.
func (b *Buffer) awaitReload(by time.Time) {
	b.mu.Lock()
	b.reloadBy = by
	b.mu.Unlock()
}

// reloadDeadline returns the reload deadline, if one is set.
func (b *Buffer) reloadDeadline() (time.Time, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.reloadBy, !b.reloadBy.IsZero()
}

// ErrDesynced is returned when a buffer is out of step with the editor.
var ErrDesynced = errors.New("the editor's buffer is out of sync with cb-ls (a change could not be applied); close and reopen the file")

// InSync reports whether the buffer is usable.
func (b *Buffer) InSync() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return !b.desynced
}

// Snapshot is an immutable copy of a buffer at one version.
type Snapshot struct {
	URI        uri.URI
	Path       string
	LanguageID string
	Version    int32
	Content    []byte
}

// Snapshot copies the buffer's current state.
func (b *Buffer) Snapshot() Snapshot {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return Snapshot{URI: b.URI, Path: b.Path, LanguageID: b.LanguageID, Version: b.version, Content: b.text.Bytes()}
}

// Version returns the buffer's current version.
func (b *Buffer) Version() int32 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.version
}

// Matches reports whether the buffer holds exactly content, and its version.
func (b *Buffer) Matches(content []byte) (bool, int32) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.text.Equal(content), b.version
}

// Overlay is the set of open buffers, by URI and by real path. Every
// change is broadcast through Changed so that code waiting for an edit to
// land can wait on a condition instead of polling.
type Overlay struct {
	mu     sync.RWMutex
	byURI  map[uri.URI]*Buffer
	byPath map[string]*Buffer

	// changed is closed at the next open, change or close; it is made
	// only when someone waits (Changed), so a keystroke that nobody
	// waits for allocates no channel.
	chMu    sync.Mutex
	changed chan struct{}
}

// NewOverlay returns an empty overlay.
func NewOverlay() *Overlay {
	return &Overlay{byURI: map[uri.URI]*Buffer{}, byPath: map[string]*Buffer{}}
}

// Changed returns a channel closed at the next open, change or close.
// Take it before checking the condition you wait for, then wait on it.
func (o *Overlay) Changed() <-chan struct{} {
	o.chMu.Lock()
	defer o.chMu.Unlock()
	if o.changed == nil {
		o.changed = make(chan struct{})
	}
	return o.changed
}

// broadcast wakes every waiter; o.mu must be held for writing.
func (o *Overlay) broadcast() {
	o.chMu.Lock()
	if o.changed != nil {
		close(o.changed)
		o.changed = nil
	}
	o.chMu.Unlock()
}

// Open records a didOpen. Reopening an open URI replaces its buffer.
func (o *Overlay) Open(u uri.URI, languageID string, version int32, text string) (*Buffer, error) {
	return o.open(u, languageID, version, NewText(text))
}

// open is Open with the text already built (didOpen's fast decoder
// builds it from the wire).
func (o *Overlay) open(u uri.URI, languageID string, version int32, text *Text) (*Buffer, error) {
	path, err := fileuri.ToPath(u)
	if err != nil {
		return nil, err
	}
	b := &Buffer{URI: u, Path: realPath(path), LanguageID: languageID, version: version, text: text}
	o.mu.Lock()
	defer o.mu.Unlock()
	if old, ok := o.byURI[u]; ok {
		delete(o.byPath, old.Path)
	}
	o.byURI[u] = b
	o.byPath[b.Path] = b
	o.broadcast()
	return b, nil
}

// ErrNotOpen is returned for a change or close of a document that is not open.
var ErrNotOpen = errors.New("document is not open")

// Change applies one didChange's content changes in order and sets the
// version. A change that cannot be applied leaves the changes before it
// in place and is reported: the buffer is then out of step with the
// editor, which the caller logs (the next full sync or reopen heals it).
func (o *Overlay) Change(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent, enc protocol.PositionEncodingKind) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.byURI[u]
	if !ok {
		return fmt.Errorf("didChange %s: %w", u, ErrNotOpen)
	}
	defer o.broadcast()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.version = version
	b.reloadBy = time.Time{}
	for i, ch := range changes {
		switch ch := ch.(type) {
		case *protocol.TextDocumentContentChangePartial:
			// Positions past the end clamp as vscode-languageserver's
			// TextDocument does: a line past the last one is the end of
			// the document (Neovim ends a whole-buffer change at
			// (lineCount, 0), one past the last line of a text without
			// a final newline), a character past its line's end is
			// that line's end.
			start := b.text.Offset(ch.Range.Start, enc)
			end := b.text.Offset(ch.Range.End, enc)
			if start > end {
				b.desynced = true
				return fmt.Errorf("didChange %s: change %d: range end %d:%d is before its start %d:%d",
					u, i, ch.Range.End.Line, ch.Range.End.Character, ch.Range.Start.Line, ch.Range.Start.Character)
			}
			b.text.Replace(start, end, ch.Text)
		case *protocol.TextDocumentContentChangeWholeDocument:
			b.text = NewText([]byte(ch.Text))
			b.desynced = false
		default:
			b.desynced = true
			return fmt.Errorf("didChange %s: change %d: unknown change type %T", u, i, ch)
		}
	}
	return nil
}

// MarkDesynced marks the open buffer for u out of sync with the editor:
// a change meant for it could not be applied.
func (o *Overlay) MarkDesynced(u uri.URI) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.byURI[u]
	if !ok {
		return
	}
	b.mu.Lock()
	b.desynced = true
	b.mu.Unlock()
	o.broadcast()
}

// Close forgets a buffer.
func (o *Overlay) Close(u uri.URI) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.byURI[u]
	if !ok {
		return fmt.Errorf("didClose %s: %w", u, ErrNotOpen)
	}
	delete(o.byURI, u)
	if o.byPath[b.Path] == b {
		delete(o.byPath, b.Path)
	}
	o.broadcast()
	return nil
}

// Get returns the open buffer for u.
func (o *Overlay) Get(u uri.URI) (*Buffer, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	b, ok := o.byURI[u]
	return b, ok
}

// ByPath returns the open buffer for a real absolute path.
func (o *Overlay) ByPath(path string) (*Buffer, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	b, ok := o.byPath[path]
	return b, ok
}

// IsOpenPath reports whether the editor has path open; it is the
// FileStates seen function.
func (o *Overlay) IsOpenPath(path string) bool {
	_, ok := o.ByPath(path)
	return ok
}

// Len returns the number of open buffers.
func (o *Overlay) Len() int {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return len(o.byURI)
}

// realPath resolves the symlinks of the longest existing prefix of p, as
// the PathGuard does, so buffers and guard.Path.Abs agree on keys.
func realPath(p string) string {
	rest := ""
	cur := p
	for {
		if ev, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(ev, rest)
		} else if !errors.Is(err, os.ErrNotExist) {
			return p
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Paths returns the real paths of the open buffers, in no order.
func (o *Overlay) Paths() []string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	out := make([]string, 0, len(o.byPath))
	for p := range o.byPath {
		out = append(out, p)
	}
	return out
}
