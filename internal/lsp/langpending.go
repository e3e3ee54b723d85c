package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/lspfeatures"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The editor's language servers, which answer the language tools
// through catbuddy/languageFeature, know the user's buffers only. A run
// whose changes are pending reads its own view (tools.RunView), so its
// line numbers and the servers' differ below each pending hunk. The
// bridge maps them through the pending diff (LineMap): the position the
// model gives, in the run's view, goes to the servers as the user's
// line, and the places they answer come back as the view's lines. A
// position inside a pending hunk has no counterpart the servers could
// answer about, and is refused with a message saying so. An outline, a
// rename and a code action would be computed on the user's text and
// could not be laid over the run's, so they are refused on a file with
// pending changes. Every answer about such a file says, in one line,
// that its lines were mapped.
//
// All this is the fallback: where cb-ls runs servers of its own for the
// runs' views (the runViewServers setting), a run with pending changes
// in files of their language asks them instead, on its own text
// (internal/app/runview_language.go), and this bridge answers only the
// languages no such server covers.

// pendingLanguage is the editor bridge's language features with the
// lines of a run's pending files mapped.
type pendingLanguage struct {
	*lspfeatures.Features
	s *Server
}

var _ tools.LanguageFeatures = (*pendingLanguage)(nil)

// pendingFile is one file of the run's view that differs from the
// user's text.
type pendingFile struct {
	rel     string
	user    []byte
	lines   LineMap
	created bool
	deleted bool
}

// pendingFiles is the run's pending files as one question meets them.
type pendingFiles struct {
	s     *Server
	mu    sync.Mutex
	files map[string]tools.ViewFile
	seen  map[string]*pendingFile // computed, nil for a file without changes
	noted []string                // the files the answer is about, for its note
	moved int                     // places in lines the run changed
}

// pendingOf returns the run's pending files in ctx, or nil outside a
// run with pending changes.
func (l *pendingLanguage) pendingOf(ctx context.Context) *pendingFiles {
	v, ok := tools.RunViewFrom(ctx)
	if !ok || v.Files == nil {
		return nil
	}
	files := v.Files()
	if len(files) == 0 {
		return nil
	}
	p := &pendingFiles{s: l.s, files: make(map[string]tools.ViewFile, len(files)), seen: map[string]*pendingFile{}}
	for _, f := range files {
		p.files[f.Path] = f
	}
	return p
}

// userText is the user's text of path: the editor's buffer, else the
// disk; ok is false when the user has no such file.
func (s *Server) userText(path string) ([]byte, bool) {
	if b, ok := s.overlay.ByPath(path); ok {
		return b.Snapshot().Content, true
	}
	content, err := os.ReadFile(path)
	return content, err == nil
}

// of returns path's pending state, or nil when the run has not changed
// it (nil p: no run view).
func (p *pendingFiles) of(path string) *pendingFile {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.seen[path]; ok {
		return f
	}
	var pf *pendingFile
	if vf, ok := p.files[path]; ok {
		pf = &pendingFile{rel: p.s.relName(path), deleted: vf.Deleted}
		user, had := p.s.userText(path)
		pf.user = user
		pf.created = !had
		if !vf.Deleted && had {
			view, err := vf.Read()
			if err != nil {
				view = user
			}
			pf.lines = NewLineMap(user, view)
			if !pf.lines.Changed() {
				pf = nil
			}
		}
	}
	p.seen[path] = pf
	if pf != nil && !slices.Contains(p.noted, pf.rel) {
		p.noted = append(p.noted, pf.rel)
	}
	return pf
}

// relName names path for the model: relative to its workspace folder.
func (s *Server) relName(path string) string {
	if p, err := s.guard.Resolve(path); err == nil {
		return p.Rel
	}
	return path
}

// note adds the answer's one line about the pending files it concerns.
func (p *pendingFiles) note(ctx context.Context) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var mapped, deleted []string
	for _, rel := range p.noted {
		f := p.seenRel(rel)
		if f != nil && f.deleted {
			deleted = append(deleted, rel)
		} else if f != nil && !f.created {
			mapped = append(mapped, rel)
		}
	}
	if len(mapped) > 0 {
		n := strings.Join(mapped, ", ") + plural(len(mapped), " has", " have") +
			" this run's pending changes, which the editor's language servers do not see: " +
			plural(len(mapped), "its", "their") + " lines were mapped from the user's text to the run's"
		if p.moved > 0 {
			n += fmt.Sprintf(", and %d %s the run changed %s shown at the start of the change", p.moved,
				plural(p.moved, "place in lines", "places in lines"), plural(p.moved, "is", "are"))
		}
		tools.NoteLanguageAnswer(ctx, n)
	}
	if len(deleted) > 0 {
		tools.NoteLanguageAnswer(ctx, "this run deleted "+strings.Join(deleted, ", ")+" (pending the user's review), but the editor's language servers still see the user's copy: the places in it are not in the run's view")
	}
}

// seenRel finds a computed file by its name. p.mu is held.
func (p *pendingFiles) seenRel(rel string) *pendingFile {
	for _, f := range p.seen {
		if f != nil && f.rel == rel {
			return f
		}
	}
	return nil
}

// toUser maps a position in the run's view to the user's text.
func (p *pendingFiles) toUser(at tools.Position) (tools.Position, error) {
	f := p.of(at.Path)
	if f == nil || f.deleted {
		return at, nil
	}
	if f.created {
		return at, fmt.Errorf("%s is a file this run created (pending the user's review), and the editor's language servers do not see it: read it, or ask about the places that use it in files without pending changes", f.rel)
	}
	line := bytes.Count(at.Content[:min(at.Offset, len(at.Content))], nl)
	col := at.Offset - (bytes.LastIndexByte(at.Content[:min(at.Offset, len(at.Content))], '\n') + 1)
	u, ok := f.lines.ToUser(line)
	if !ok {
		return at, fmt.Errorf("line %d of %s is in this run's pending changes, which the editor's language servers do not see (they read the user's text): ask about a line outside the changes, or read the file", line+1, f.rel)
	}
	start := lineStart(f.user, u)
	end := bytes.IndexByte(f.user[start:], '\n')
	if end < 0 {
		end = len(f.user) - start
	}
	return tools.Position{Path: at.Path, Content: f.user, Offset: start + min(col, end)}, nil
}

// lineStart is the byte offset of 0-based line n in b.
func lineStart(b []byte, n int) int {
	off := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(b[off:], '\n')
		if j < 0 {
			return len(b)
		}
		off += j + 1
	}
	return off
}

// toView maps a place the servers answered to the run's view.
func (p *pendingFiles) toView(loc tools.Location) tools.Location {
	f := p.of(loc.Path)
	if f == nil || f.deleted || f.created || loc.Line < 1 {
		return loc
	}
	l, ok := f.lines.ToView(loc.Line - 1)
	if !ok {
		p.mu.Lock()
		p.moved++
		p.mu.Unlock()
	}
	end, _ := f.lines.ToView(max(loc.EndLine, loc.Line) - 1)
	loc.Line, loc.EndLine = l+1, max(end+1, l+1)
	return loc
}

// refuse returns why op cannot be answered on path while it has pending
// changes, or nil.
func (p *pendingFiles) refuse(op, path string) error {
	f := p.of(path)
	if f == nil || f.deleted {
		return nil
	}
	return fmt.Errorf("%s %s is %w: the editor's language servers do not see them (they answer from the user's text, so the answer would not fit the run's), and no language server of cb-ls's own sees this run's %s files (the runViewServers setting). %s",
		op, f.rel, errPendingFile, filepath.Ext(path), pendingAdvice[op])
}

// errPendingFile is wrapped by the refusals of questions about a file
// with pending changes.
var errPendingFile = errors.New("not available while the file has this run's pending changes")

var pendingAdvice = map[string]string{
	"the outline of":          "Read the file (read_file) or grep it for its declarations instead; to replace a declaration (replace_symbol), use edit_file.",
	"renaming a symbol in":    "Rename with edit_file or multi_edit in the files with pending changes, or ask again once the user has kept or discarded them.",
	"code actions on":         "Make the change with edit_file instead, or ask again once the user has kept or discarded the changes.",
	"a code action's edit of": "Make the change with edit_file instead, or ask again once the user has kept or discarded the changes.",
}

// readOutside wraps read so that an edit of a file with pending changes
// is refused: the servers computed it on the user's text.
func (p *pendingFiles) readOutside(read tools.ReadFunc, op string) tools.ReadFunc {
	if p == nil {
		return read
	}
	return func(path string) ([]byte, error) {
		if err := p.refuse(op, path); err != nil {
			return nil, err
		}
		return read(path)
	}
}

// Locations implements tools.LanguageFeatures.
func (l *pendingLanguage) Locations(ctx context.Context, op tools.LanguageOp, at tools.Position) ([]tools.Location, error) {
	p := l.pendingOf(ctx)
	if p == nil {
		return l.Features.Locations(ctx, op, at)
	}
	uat, err := p.toUser(at)
	if err != nil {
		return nil, err
	}
	locs, err := l.Features.Locations(ctx, op, uat)
	for i := range locs {
		locs[i] = p.toView(locs[i])
	}
	p.note(ctx)
	return locs, err
}

// Hover implements tools.LanguageFeatures.
func (l *pendingLanguage) Hover(ctx context.Context, at tools.Position) (string, error) {
	p := l.pendingOf(ctx)
	if p == nil {
		return l.Features.Hover(ctx, at)
	}
	uat, err := p.toUser(at)
	if err != nil {
		return "", err
	}
	text, err := l.Features.Hover(ctx, uat)
	p.note(ctx)
	return text, err
}

// DocumentSymbols implements tools.LanguageFeatures: refused on a file
// with pending changes (the symbols' ranges would be the user's).
func (l *pendingLanguage) DocumentSymbols(ctx context.Context, at tools.Position) ([]tools.Symbol, error) {
	if p := l.pendingOf(ctx); p != nil {
		if err := p.refuse("the outline of", at.Path); err != nil {
			return nil, err
		}
	}
	return l.Features.DocumentSymbols(ctx, at)
}

// WorkspaceSymbols implements tools.LanguageFeatures.
func (l *pendingLanguage) WorkspaceSymbols(ctx context.Context, query string) ([]tools.Symbol, error) {
	syms, err := l.Features.WorkspaceSymbols(ctx, query)
	if p := l.pendingOf(ctx); p != nil {
		for i := range syms {
			syms[i].Location = p.toView(syms[i].Location)
		}
		p.note(ctx)
	}
	return syms, err
}

// Calls implements tools.LanguageFeatures.
func (l *pendingLanguage) Calls(ctx context.Context, op tools.LanguageOp, at tools.Position) ([]tools.Call, error) {
	p := l.pendingOf(ctx)
	if p == nil {
		return l.Features.Calls(ctx, op, at)
	}
	uat, err := p.toUser(at)
	if err != nil {
		return nil, err
	}
	calls, err := l.Features.Calls(ctx, op, uat)
	for i := range calls {
		calls[i].Symbol.Location = p.toView(calls[i].Symbol.Location)
		for j := range calls[i].Sites {
			calls[i].Sites[j] = p.toView(calls[i].Sites[j])
		}
	}
	p.note(ctx)
	return calls, err
}

// PrepareRename implements tools.LanguageFeatures.
func (l *pendingLanguage) PrepareRename(ctx context.Context, at tools.Position) error {
	if p := l.pendingOf(ctx); p != nil {
		if err := p.refuse("renaming a symbol in", at.Path); err != nil {
			return err
		}
	}
	return l.Features.PrepareRename(ctx, at)
}

// Rename implements tools.LanguageFeatures: refused when the symbol's
// file, or a file the rename edits, has pending changes.
func (l *pendingLanguage) Rename(ctx context.Context, at tools.Position, newName string, read tools.ReadFunc) ([]tools.FileEdit, error) {
	p := l.pendingOf(ctx)
	if p != nil {
		if err := p.refuse("renaming a symbol in", at.Path); err != nil {
			return nil, err
		}
	}
	return l.Features.Rename(ctx, at, newName, p.readOutside(read, "renaming a symbol in"))
}

// CodeActions implements tools.LanguageFeatures: refused on a file with
// pending changes, and an action's edit of one is refused too.
func (l *pendingLanguage) CodeActions(ctx context.Context, at tools.Position, end int, kind string) ([]tools.CodeAction, error) {
	p := l.pendingOf(ctx)
	if p != nil {
		if err := p.refuse("code actions on", at.Path); err != nil {
			return nil, err
		}
	}
	acts, err := l.Features.CodeActions(ctx, at, end, kind)
	if p != nil {
		for i := range acts {
			if edit := acts[i].Edit; edit != nil {
				acts[i].Edit = func(ctx context.Context, read tools.ReadFunc) ([]tools.FileEdit, error) {
					return edit(ctx, p.readOutside(read, "a code action's edit of"))
				}
			}
		}
	}
	return acts, err
}
