package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

// langTools is what the language tools share: the tool context and the
// language features that answer them.
type langTools struct {
	tc *ToolContext
	lf LanguageFeatures
}

// LanguageTools returns the language tools lf can answer: lsp (with the
// operations lf supports), rename_symbol, code_action and
// replace_symbol. None when lf is nil or answers nothing, so a client
// without the bridge and a headless run without language servers are
// not offered tools that cannot work.
func LanguageTools(tc *ToolContext, lf LanguageFeatures) []Tool {
	if lf == nil {
		return nil
	}
	lt := &langTools{tc: tc, lf: lf}
	var out []Tool
	if t, ok := lt.lspTool(); ok {
		out = append(out, t)
	}
	if lf.Supports(OpRename, "") {
		out = append(out, lt.renameTool())
	}
	if lf.Supports(OpCodeAction, "") {
		out = append(out, lt.codeActionTool())
	}
	if lf.Supports(OpDocumentSymbols, "") {
		out = append(out, lt.replaceSymbolTool())
	}
	return out
}

// RegisterLanguageTools registers LanguageTools(tc, lf) in r.
func RegisterLanguageTools(r *Registry, tc *ToolContext, lf LanguageFeatures) error {
	for _, t := range LanguageTools(tc, lf) {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// maxLocations bounds the places one answer lists.
const maxLocations = 50

// position reads path and finds symbol on line: the Position a language
// feature starts from. A Result (with IsError) is returned for the
// model when that fails.
func (lt *langTools) position(ctx context.Context, path string, line int, symbol string, occurrence int) (guard.Path, Position, *Result) {
	p, doc, err := lt.tc.openDoc(ctx, path)
	if err != nil {
		r := docErrorAt(path, p, err)
		return p, Position{}, &r
	}
	if safefile.LooksBinary(doc.Content) {
		r := Errorf("%s is a binary file", path)
		return p, Position{}, &r
	}
	off, err := symbolOffset(doc.Content, p.Rel, line, symbol, occurrence)
	if err != nil {
		r := Errorf("%v", err)
		return p, Position{}, &r
	}
	return p, Position{Path: p.Abs, Content: doc.Content, Offset: off}, nil
}

// lineCiter reads files for citing their lines, once each, through the
// Workspace (so the editor's unsaved text is what is cited) and only
// inside the workspace.
type lineCiter struct {
	lt    *langTools
	ctx   context.Context
	files map[string][]byte
}

func (lt *langTools) lineReader(ctx context.Context) *lineCiter {
	return &lineCiter{lt: lt, ctx: ctx, files: map[string][]byte{}}
}

// cite renders loc as "rel:line: text", or the absolute path marked as
// outside the workspace.
func (l *lineCiter) cite(loc Location) string {
	p, err := l.lt.tc.Resolve(loc.Path)
	if err != nil {
		return fmt.Sprintf("%s:%d (outside the workspace)", loc.Path, loc.Line)
	}
	content, ok := l.files[p.Abs]
	if !ok {
		if doc, err := l.lt.tc.workspace(l.ctx).Read(l.ctx, p); err == nil && !safefile.LooksBinary(doc.Content) {
			content = doc.Content
		}
		l.files[p.Abs] = content
	}
	if t := lineText(content, loc.Line); t != "" {
		return fmt.Sprintf("%s:%d: %s", p.Rel, loc.Line, t)
	}
	return fmt.Sprintf("%s:%d", p.Rel, loc.Line)
}

// rel names loc's file and line without the text.
func (l *lineCiter) rel(loc Location) string {
	if p, err := l.lt.tc.Resolve(loc.Path); err == nil {
		return fmt.Sprintf("%s:%d", p.Rel, loc.Line)
	}
	return fmt.Sprintf("%s:%d", loc.Path, loc.Line)
}

// uniqueLocations drops repeated places (several servers may answer the
// same) keeping the first order, and sorts references by file and line.
func uniqueLocations(locs []Location, sorted bool) []Location {
	type key struct {
		path string
		line int
	}
	seen := map[key]bool{}
	out := make([]Location, 0, len(locs))
	for _, l := range locs {
		k := key{l.Path, l.Line}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, l)
	}
	if sorted {
		slices.SortStableFunc(out, func(a, b Location) int {
			if c := strings.Compare(a.Path, b.Path); c != 0 {
				return c
			}
			return a.Line - b.Line
		})
	}
	return out
}

// editReader is the ReadFunc of an edit: every file goes through the
// PathGuard and the Workspace, and the Document read is kept, so the
// change is pinned to exactly the content the edits were converted
// against.
type editReader struct {
	lt   *langTools
	ctx  context.Context
	docs map[string]fileDoc
}

type fileDoc struct {
	path guard.Path
	doc  Document
}

func (lt *langTools) editReader(ctx context.Context) *editReader {
	return &editReader{lt: lt, ctx: ctx, docs: map[string]fileDoc{}}
}

func (r *editReader) read(path string) ([]byte, error) {
	if d, ok := r.docs[path]; ok {
		return d.doc.Content, nil
	}
	p, doc, err := r.lt.tc.openDoc(r.ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.docs[path] = fileDoc{path: p, doc: doc}
	return doc.Content, nil
}

// changes turns a language server's edits into Changes over the
// documents read, in path order. label describes them for the review.
func (r *editReader) changes(fes []FileEdit, label string) ([]Change, error) {
	byPath := map[string][]TextEdit{}
	for _, fe := range fes {
		byPath[fe.Path] = append(byPath[fe.Path], fe.Edits...)
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var cs []Change
	for _, path := range paths {
		if _, err := r.read(path); err != nil {
			return nil, err
		}
		d := r.docs[path]
		edits := slices.Clone(byPath[path])
		slices.SortStableFunc(edits, func(a, b TextEdit) int { return a.Start - b.Start })
		edits = slices.DeleteFunc(edits, func(e TextEdit) bool {
			return e.Start == e.End && e.NewText == "" // no-ops some servers send
		})
		after, err := diff.Apply(d.doc.Content, edits)
		if err != nil {
			return nil, fmt.Errorf("the language server's edits to %s overlap or fall outside the file: %v", d.path.Rel, err)
		}
		if string(after) == string(d.doc.Content) {
			continue
		}
		cs = append(cs, Change{Path: d.path, Base: d.doc, Edits: edits, After: after, Label: label})
	}
	return cs, nil
}
