package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

//go:embed rename_symbol.md
var renameDescription string

type renameInput struct {
	Path       string `json:"path"`
	Line       int    `json:"line"`
	Symbol     string `json:"symbol"`
	Occurrence int    `json:"occurrence,omitempty"`
	NewName    string `json:"new_name"`
}

func (lt *langTools) renameTool() Tool {
	return NewTool("rename_symbol", strings.TrimSpace(renameDescription), func(ctx context.Context, in renameInput) (Result, error) {
		ctx, notes := withLanguageNotes(ctx)
		res, err := lt.rename(ctx, in)
		return notes.apply(res), err
	})
}

func (lt *langTools) rename(ctx context.Context, in renameInput) (Result, error) {
	if msg := checkNewName(in.Symbol, in.NewName); msg != "" {
		return Errorf("%s; nothing was changed", msg), nil
	}
	p, at, bad := lt.position(ctx, in.Path, in.Line, in.Symbol, in.Occurrence)
	if bad != nil {
		return *bad, ctx.Err()
	}
	if err := lt.lf.PrepareRename(ctx, at); err != nil {
		if errors.Is(err, ErrCannotRename) {
			return Errorf("%v; nothing was changed", err), nil
		}
		return Result{}, err
	}
	unopened, _ := lt.widenScope(ctx, at, in.Symbol)
	r := lt.editReader(ctx)
	fes, err := lt.lf.Rename(ctx, at, in.NewName, r.read)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("rename %s to %s: %v; nothing was changed", in.Symbol, in.NewName, err), nil
	}
	changed := make([]Location, 0, len(fes))
	for _, fe := range fes {
		changed = append(changed, Location{Path: fe.Path})
	}
	lt.unlisted(ctx, at, in.Symbol, unopened, changed)
	label := fmt.Sprintf("rename_symbol %s → %s", in.Symbol, in.NewName)
	cs, err := r.changes(fes, label)
	if err != nil {
		return Errorf("rename %s to %s: %v; nothing was changed", in.Symbol, in.NewName, err), nil
	}
	if len(cs) == 0 {
		return Errorf("the language server found nothing to rename for %s at %s:%d", in.Symbol, p.Rel, in.Line), nil
	}
	n := 0
	for _, c := range cs {
		n += len(c.Edits)
	}
	why := countDifference(lt.refs.about(in.Symbol, p.Abs, in.Line), cs, n)
	touched, left := renameTouched(cs), renameLeft(cs, in.Symbol)
	cs = lt.formatChanges(ctx, cs)
	res, err := lt.tc.commitAll(ctx, "rename_symbol", cs, "")
	if !res.IsError {
		head := fmt.Sprintf("Rename of %s to %s: %d occurrence%s in %d file%s%s.\n", in.Symbol, in.NewName, n, plural(n), len(cs), plural(len(cs)), touched)
		if why != "" {
			head += why + "\n"
		}
		if left != "" {
			head += left + "\n"
		}
		res.Output = head + res.Output
	}
	return res, err
}

// checkNewName catches what is never a valid new name in any language,
// before a language server is asked; the server judges the rest.
func checkNewName(old, name string) string {
	switch {
	case name == "":
		return "new_name is empty"
	case name == old:
		return fmt.Sprintf("new_name is %s already", old)
	case strings.ContainsFunc(name, unicode.IsSpace):
		return fmt.Sprintf("new_name %q contains white space; give one identifier", name)
	}
	return ""
}
