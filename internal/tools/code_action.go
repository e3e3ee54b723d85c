package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed code_action.md
var codeActionDescription string

type codeActionInput struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Title   string `json:"title,omitempty"`
}

func (lt *langTools) codeActionTool() Tool {
	return NewTool("code_action", strings.TrimSpace(codeActionDescription), func(ctx context.Context, in codeActionInput) (Result, error) {
		ctx, notes := withLanguageNotes(ctx)
		res, err := lt.codeAction(ctx, in)
		return notes.apply(res), err
	})
}

func (lt *langTools) codeAction(ctx context.Context, in codeActionInput) (Result, error) {
	p, doc, err := lt.tc.openDoc(ctx, in.Path)
	if err != nil {
		return docErrorAt(in.Path, p, err), ctx.Err()
	}
	endLine := max(in.EndLine, in.Line)
	start, _, lines, ok := lineBounds(doc.Content, in.Line)
	if !ok {
		return Errorf("line %d is past the end of %s (%d lines)", in.Line, p.Rel, lines), nil
	}
	_, end, _, ok := lineBounds(doc.Content, endLine)
	if !ok {
		return Errorf("end_line %d is past the end of %s (%d lines)", endLine, p.Rel, lines), nil
	}
	actions, err := lt.lf.CodeActions(ctx, Position{Path: p.Abs, Content: doc.Content, Offset: start}, end, in.Kind)
	if err != nil {
		return Result{}, err
	}
	where := fmt.Sprintf("%s:%d", p.Rel, in.Line)
	if endLine > in.Line {
		where += fmt.Sprintf("-%d", endLine)
	}
	if in.Title == "" {
		return Text(listActions(where, actions)), nil
	}
	var chosen *CodeAction
	for i := range actions {
		if strings.EqualFold(strings.TrimSpace(actions[i].Title), strings.TrimSpace(in.Title)) {
			chosen = &actions[i]
			break
		}
	}
	switch {
	case chosen == nil:
		return Errorf("no code action titled %q at %s. %s", in.Title, where, listActions(where, actions)), nil
	case chosen.Disabled != "":
		return Errorf("%q cannot be applied now: %s", chosen.Title, chosen.Disabled), nil
	case chosen.Edit == nil:
		return Errorf("%q only runs the editor command %s, which code_action cannot apply; nothing was changed", chosen.Title, chosen.Command), nil
	}
	r := lt.editReader(ctx)
	fes, err := chosen.Edit(ctx, r.read)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Errorf("%q: %v; nothing was changed", chosen.Title, err), nil
	}
	cs, err := r.changes(fes, "code_action "+chosen.Title)
	if err != nil {
		return Errorf("%q: %v; nothing was changed", chosen.Title, err), nil
	}
	if len(cs) == 0 {
		return Text(fmt.Sprintf("%q changes nothing in the files as they are now.", chosen.Title)), nil
	}
	cs = lt.formatChanges(ctx, cs)
	res, err := lt.tc.commitAll(ctx, "code_action", cs, "")
	if !res.IsError && chosen.Command != "" {
		res.Output += fmt.Sprintf("\n(The action's follow-up command %s was not run.)", chosen.Command)
	}
	return res, err
}

// listActions names every action, marking those that cannot be applied.
func listActions(where string, actions []CodeAction) string {
	if len(actions) == 0 {
		return "No code actions at " + where + "."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d code action%s at %s (apply one by its title):\n", len(actions), plural(len(actions)), where)
	for _, a := range actions {
		fmt.Fprintf(&b, "- %s", a.Title)
		var notes []string
		if a.Kind != "" {
			notes = append(notes, a.Kind)
		}
		if a.Preferred {
			notes = append(notes, "preferred")
		}
		switch {
		case a.Disabled != "":
			notes = append(notes, "disabled: "+a.Disabled)
		case a.Edit == nil:
			notes = append(notes, "runs an editor command: not applicable here")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(notes, "; "))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
