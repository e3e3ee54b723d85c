package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// In the editor the language tools are answered by the editor's servers
// (the catbuddy/languageFeature bridge), which see the user's buffers. A
// run whose changes are pending has another text: the bridge maps the
// lines of the places it points to (internal/lsp/langpending.go), but an
// outline, a rename or a code action computed on the user's text cannot
// be laid over the run's, so the bridge refuses them. Where cb-ls runs
// servers of its own for the runs' views (RunViewServers), a run that has
// pending changes in files of a server's language asks that server
// instead, about every file of the language: it is shown the run's
// pending text before each question (lspclient's view), so its positions
// are the run's and the edits it computes fit the run's files; they land
// pending through the run's Workspace like every edit. Everything else
// (questions outside a run with a view, files of a language the run did
// not change, workspace symbols) stays with the editor, whose servers
// also see the user's unsaved buffers of other files.

// viewLanguage answers the language tools from the editor, or from the
// run-view servers for the languages the run in ctx has pending changes
// in.
type viewLanguage struct {
	editor tools.LanguageFeatures
	view   tools.LanguageFeatures // the run-view servers' (lspclient's Features)
	vc     *lspclient.Client
}

var (
	_ tools.LanguageFeatures   = viewLanguage{}
	_ tools.LanguageFormatter  = viewLanguage{}
	_ tools.LanguageFileLoader = viewLanguage{}
)

// withRunViewLanguage wraps the editor's language features so that runs
// with pending changes are answered by vc's servers; without them the
// editor answers alone.
func withRunViewLanguage(editor tools.LanguageFeatures, vc *lspclient.Client) tools.LanguageFeatures {
	if editor == nil || vc == nil {
		return editor
	}
	return viewLanguage{editor: editor, view: vc.Features(), vc: vc}
}

// inView reports whether the run in ctx has pending changes in a file of
// the language of path that a run-view server answers for, and names it.
func (l viewLanguage) inView(ctx context.Context, path string) (server string, ok bool) {
	v, has := tools.RunViewFrom(ctx)
	if !has || v.Files == nil {
		return "", false
	}
	name := l.vc.ServerFor(path)
	if name == "" {
		return "", false
	}
	for _, f := range v.Files() {
		if l.vc.ServerFor(f.Path) == name {
			return name, true
		}
	}
	return "", false
}

// of returns who answers about path for the run in ctx.
func (l viewLanguage) of(ctx context.Context, path string) tools.LanguageFeatures {
	if _, ok := l.inView(ctx, path); ok {
		return l.view
	}
	return l.editor
}

// fallBack reports whether a run-view server's error leaves the question
// to the editor: the server could not start, was withdrawn, or does not
// answer the method. The editor's bridge then maps or refuses it.
func fallBack(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && (errors.Is(err, lspclient.ErrUnavailable) || errors.Is(err, tools.ErrNoLanguageServer))
}

// Supports implements tools.LanguageFeatures: the tools offered are the
// editor's, as without run-view servers.
func (l viewLanguage) Supports(op tools.LanguageOp, path string) bool {
	return l.editor.Supports(op, path)
}

// Locations implements tools.LanguageFeatures.
func (l viewLanguage) Locations(ctx context.Context, op tools.LanguageOp, at tools.Position) ([]tools.Location, error) {
	if lf := l.of(ctx, at.Path); lf == l.view {
		locs, err := lf.Locations(ctx, op, at)
		if !fallBack(ctx, err) {
			return locs, err
		}
	}
	return l.editor.Locations(ctx, op, at)
}

// Hover implements tools.LanguageFeatures.
func (l viewLanguage) Hover(ctx context.Context, at tools.Position) (string, error) {
	if lf := l.of(ctx, at.Path); lf == l.view {
		text, err := lf.Hover(ctx, at)
		if !fallBack(ctx, err) {
			return text, err
		}
	}
	return l.editor.Hover(ctx, at)
}

// DocumentSymbols implements tools.LanguageFeatures: for a run with
// pending changes in the file's language, the outline of the run's text
// (at.Content), whose ranges replace_symbol edits.
func (l viewLanguage) DocumentSymbols(ctx context.Context, at tools.Position) ([]tools.Symbol, error) {
	if lf := l.of(ctx, at.Path); lf == l.view {
		syms, err := lf.DocumentSymbols(ctx, at)
		if !fallBack(ctx, err) {
			return syms, err
		}
	}
	return l.editor.DocumentSymbols(ctx, at)
}

// WorkspaceSymbols implements tools.LanguageFeatures: the editor's,
// mapped into the run's view by the bridge (a question of no file would
// start every run-view server).
func (l viewLanguage) WorkspaceSymbols(ctx context.Context, query string) ([]tools.Symbol, error) {
	return l.editor.WorkspaceSymbols(ctx, query)
}

// Calls implements tools.LanguageFeatures.
func (l viewLanguage) Calls(ctx context.Context, op tools.LanguageOp, at tools.Position) ([]tools.Call, error) {
	if lf := l.of(ctx, at.Path); lf == l.view {
		calls, err := lf.Calls(ctx, op, at)
		if !fallBack(ctx, err) {
			return calls, err
		}
	}
	return l.editor.Calls(ctx, op, at)
}

// PrepareRename implements tools.LanguageFeatures.
func (l viewLanguage) PrepareRename(ctx context.Context, at tools.Position) error {
	if lf := l.of(ctx, at.Path); lf == l.view {
		err := lf.PrepareRename(ctx, at)
		if !fallBack(ctx, err) {
			return err
		}
	}
	return l.editor.PrepareRename(ctx, at)
}

// Rename implements tools.LanguageFeatures: on the run's view, the
// edits of files without pending changes checked against the disk the
// server read.
func (l viewLanguage) Rename(ctx context.Context, at tools.Position, newName string, read tools.ReadFunc) ([]tools.FileEdit, error) {
	if name, ok := l.inView(ctx, at.Path); ok {
		fes, err := l.view.Rename(ctx, at, newName, l.asServerRead(ctx, name, read))
		if !fallBack(ctx, err) {
			return fes, err
		}
	}
	return l.editor.Rename(ctx, at, newName, read)
}

// CodeActions implements tools.LanguageFeatures: on the run's view, each
// action's edit checked as a rename's.
func (l viewLanguage) CodeActions(ctx context.Context, at tools.Position, end int, kind string) ([]tools.CodeAction, error) {
	name, ok := l.inView(ctx, at.Path)
	if !ok {
		return l.editor.CodeActions(ctx, at, end, kind)
	}
	acts, err := l.view.CodeActions(ctx, at, end, kind)
	if fallBack(ctx, err) {
		return l.editor.CodeActions(ctx, at, end, kind)
	}
	for i := range acts {
		if edit := acts[i].Edit; edit != nil {
			acts[i].Edit = func(ctx context.Context, read tools.ReadFunc) ([]tools.FileEdit, error) {
				return edit(ctx, l.asServerRead(ctx, name, read))
			}
		}
	}
	return acts, err
}

// Format implements tools.LanguageFormatter: a change computed on the
// run's view is formatted there too.
func (l viewLanguage) Format(ctx context.Context, path string, before, after []byte, changed [][2]int) ([]tools.TextEdit, error) {
	f, ok := l.of(ctx, path).(tools.LanguageFormatter)
	if !ok {
		return nil, tools.ErrNoFormatter
	}
	return f.Format(ctx, path, before, after, changed)
}

// SameServer implements tools.LanguageFileLoader.
func (l viewLanguage) SameServer(path, other string) bool {
	if n := l.vc.ServerFor(path); n != "" {
		return n == l.vc.ServerFor(other)
	}
	return tools.SameLanguage(path, other)
}

// errEditorLoads is why the editor's servers cannot be shown files: the
// tools then name the files the answer leaves out instead.
var errEditorLoads = errors.New("the editor's language servers are not shown files by cb-ls")

// LoadFiles implements tools.LanguageFileLoader: the run-view server is
// shown the files before a question across files; the editor's cannot
// be.
func (l viewLanguage) LoadFiles(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if loader, ok := l.of(ctx, paths[0]).(tools.LanguageFileLoader); ok {
		return loader.LoadFiles(ctx, paths)
	}
	return errEditorLoads
}

// asServerRead wraps the tool's read of the files an edit changes: the
// run-view server read a file without pending changes from the disk, so
// an edit of one whose editor buffer holds unsaved text would land in
// the wrong places, and is refused.
func (l viewLanguage) asServerRead(ctx context.Context, server string, read tools.ReadFunc) tools.ReadFunc {
	pending := map[string]bool{}
	if v, ok := tools.RunViewFrom(ctx); ok && v.Files != nil {
		for _, f := range v.Files() {
			pending[f.Path] = true
		}
	}
	return func(path string) ([]byte, error) {
		content, err := read(path)
		if err != nil || pending[path] {
			return content, err
		}
		// Regular files only, no link followed, no more read than the
		// buffer holds: a bigger file differs from it anyway.
		disk, _, derr := safefile.ReadBeneath(ctx, filepath.Dir(path), filepath.Base(path), int64(len(content)))
		if errors.Is(derr, safefile.ErrTooLarge) || derr == nil && !bytes.Equal(disk, content) {
			return nil, fmt.Errorf("%s has unsaved changes in the editor, which %s (started by cb-ls for this run's view) does not see: it reads that file from the disk. Ask the user to save it, or change it with edit_file", filepath.Base(path), server)
		}
		return content, nil
	}
}
