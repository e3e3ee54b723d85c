package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
)

//go:embed replace_symbol.md
var replaceSymbolDescription string

type replaceSymbolInput struct {
	Path    string `json:"path"`
	Symbol  string `json:"symbol"`
	NewText string `json:"new_text"`
}

func (lt *langTools) replaceSymbolTool() Tool {
	return NewTool("replace_symbol", strings.TrimSpace(replaceSymbolDescription), func(ctx context.Context, in replaceSymbolInput) (Result, error) {
		ctx, notes := withLanguageNotes(ctx)
		res, err := lt.replaceSymbol(ctx, in)
		return notes.apply(res), err
	})
}

func (lt *langTools) replaceSymbol(ctx context.Context, in replaceSymbolInput) (Result, error) {
	want := strings.TrimSpace(in.Symbol)
	if want == "" {
		return Errorf("symbol is empty: give Name or Container.Name"), nil
	}
	p, doc, err := lt.tc.openDoc(ctx, in.Path)
	if err != nil {
		return docErrorAt(in.Path, p, err), ctx.Err()
	}
	syms, err := lt.lf.DocumentSymbols(ctx, Position{Path: p.Abs, Content: doc.Content})
	if err != nil {
		return Result{}, err
	}
	matches := findSymbols(syms, want)
	switch {
	case len(matches) == 0:
		return Errorf("no symbol %s in %s. %s", want, p.Rel, formatOutline(p.Rel, topLevel(syms))), nil
	case len(matches) > 1:
		var b strings.Builder
		fmt.Fprintf(&b, "%d symbols are called %s in %s; name the container (Container.Name):", len(matches), want, p.Rel)
		for _, m := range matches {
			fmt.Fprintf(&b, "\n%s %s", m.qualified, symbolLine(m.sym))
		}
		return Errorf("%s", b.String()), nil
	}
	s := matches[0].sym
	if s.Start < 0 || s.End > len(doc.Content) || s.End < s.Start {
		return Errorf("the language server gave %s a range outside %s; nothing was changed", want, p.Rel), nil
	}
	text := adaptNewlines(doc.Content, in.NewText)
	// The declaration's range ends before its line break; a new text
	// written as whole lines must not add a second one.
	if strings.HasSuffix(text, "\n") && s.End < len(doc.Content) && (doc.Content[s.End] == '\n' || doc.Content[s.End] == '\r') {
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	}
	e := TextEdit{Start: s.Start, End: s.End, NewText: text}
	after, err := diff.Apply(doc.Content, []TextEdit{e})
	if err != nil {
		return Errorf("replace_symbol: %v", err), nil
	}
	if string(after) == string(doc.Content) {
		return Errorf("new_text is the declaration of %s as it is; nothing to change", want), nil
	}
	warning := lt.tc.FileStates(ctx).CheckRead(p.Abs)
	c := lt.formatChanges(ctx, []Change{{Path: p, Base: doc, Edits: []TextEdit{e}, After: after}})[0]
	return lt.tc.commit(ctx, "replace_symbol", c, warning)
}

type symbolMatch struct {
	sym       Symbol
	qualified string
}

// findSymbols returns the symbols named want, written Name or
// Container.Name. A Go method outlined as "(*T).M" is also T.M.
func findSymbols(syms []Symbol, want string) []symbolMatch {
	var out []symbolMatch
	var walk func(ss []Symbol, container string)
	walk = func(ss []Symbol, container string) {
		for _, s := range ss {
			name := plainName(s.Name)
			c := container
			if s.Container != "" {
				c = plainName(s.Container)
			}
			q := name
			if c != "" && !strings.Contains(name, ".") {
				q = c + "." + name
			}
			if want == q || (!strings.Contains(want, ".") && want == lastPart(name)) {
				out = append(out, symbolMatch{sym: s, qualified: q})
			}
			walk(s.Children, lastPart(name))
		}
	}
	walk(syms, "")
	return out
}

// plainName turns "(*T).M" into "T.M".
func plainName(s string) string {
	return strings.NewReplacer("(", "", ")", "", "*", "").Replace(s)
}

func lastPart(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }

// topLevel drops children, for a short list of what is there.
func topLevel(syms []Symbol) []Symbol {
	out := make([]Symbol, len(syms))
	for i, s := range syms {
		s.Children = nil
		out[i] = s
	}
	return out
}
