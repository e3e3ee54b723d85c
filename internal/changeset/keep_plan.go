package changeset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// keepPlan is one file's part of a keep.
type keepPlan struct {
	file    File
	base    []byte
	pending []byte // the layer's content the hunks were taken from
	chosen  []int  // indices of file.Hunks that go into change
	change  tools.Change
	noop    bool // the user's text already is the result: nothing to apply
	// owners are the hunks each of change.Edits lands (a conflict's
	// region may land several, a hunk resolved as theirs none); nil
	// when the change is the whole file.
	owners [][]int
	// how are the conflicted hunks the keep resolves, by index.
	how map[int]Resolution
	// drop: a whole-file conflict resolved as theirs; the chosen hunks
	// leave the run's layer, as a discard drops them.
	drop bool
	// news tells the agent of the conflicts left pending.
	news []string
}

// planKeep merges f's chosen hunks over the user's text as ws has it,
// resolving the conflicts as how says.
func (s *Set) planKeep(ctx context.Context, f File, idx []int, ws tools.Workspace, how Resolution) (keepPlan, []Left, error) {
	s.mu.Lock()
	fo := s.folders[f.Path.Root]
	base, err := fo.baseText(ctx, f.Path.Rel)
	var pending []byte
	if f.Kind != KindDeleted {
		pending, _, _ = fo.upperText(ctx, f.Path.Rel)
	}
	var moved, gone bool
	if err == nil {
		moved, gone, err = fo.userChanged(ctx, fo.files[f.Path.Rel], f.Path.Rel)
	}
	s.mu.Unlock()
	if err != nil {
		return keepPlan{}, nil, err
	}
	p := keepPlan{file: f, base: base, pending: pending}
	leave := func(why string) (keepPlan, []Left, error) {
		var left []Left
		for _, h := range idx {
			left = append(left, Left{Hunk: f.Hunks[h].ID, Reason: why})
		}
		return p, left, nil
	}
	cur, err := ws.Read(ctx, f.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return keepPlan{}, nil, fmt.Errorf("read %s: %w", f.Path.Rel, err)
	}
	// whole resolves a conflict of the whole file: theirs drops the
	// run's change, run makes the path after (the run's file, or its
	// deletion), both and markers leave it, saying what would do.
	whole := func(why, runDoes string, after []byte) (keepPlan, []Left, error) {
		switch how {
		case ResolveNone:
			return leave(why)
		case ResolveTheirs, ResolveRun:
			p.chosen, p.how = idx, map[int]Resolution{}
			for _, h := range idx {
				p.how[h] = how
			}
			if how == ResolveTheirs {
				p.noop, p.drop = true, true
			} else {
				p.change, p.owners = wholeChange(f, cur, exists, after), [][]int{idx}
			}
			return p, nil, nil
		}
		return leave(onlyWhole(how, why, runDoes))
	}
	if moved && !gone {
		// The base is the folder's entry, which the user changed since
		// the run found it: comparing with it would compare the user's
		// file with itself.
		if f.Kind == KindDeleted {
			return whole(fmt.Sprintf("%s changed since the run deleted it; deleting it now would lose those changes, so it was left", f.Path.Rel), "delete the file", nil)
		}
		return whole(fmt.Sprintf("%s changed since the run changed it; keeping the run's would replace those changes, so it was left", f.Path.Rel), "write the run's whole file", pending)
	}
	switch f.Kind {
	case KindCreated:
		if exists && !bytes.Equal(cur.Content, pending) {
			return whole(fmt.Sprintf("a file %s was created meanwhile; keeping the run's would replace it, so it was left as it is", f.Path.Rel), "write the run's whole file over it", pending)
		}
		p.chosen, p.noop = idx, exists
		p.change = tools.Change{Path: f.Path, Create: true, Edits: []tools.TextEdit{{NewText: string(pending)}}, After: pending, Label: "keep " + f.Path.Rel}
		return p, nil, nil
	case KindDeleted:
		if exists && !bytes.Equal(cur.Content, base) {
			return whole(fmt.Sprintf("%s changed since the run deleted it; deleting it now would lose those changes, so it was left", f.Path.Rel), "delete the file", nil)
		}
		p.chosen, p.noop = idx, !exists
		p.change = tools.Change{Path: f.Path, Base: cur, Delete: true, Label: "keep the deletion of " + f.Path.Rel}
		return p, nil, nil
	}
	if !exists {
		edits := make([]diff.Edit, len(idx))
		for i, h := range idx {
			edits[i] = f.Hunks[h].Edit
		}
		after, err := diff.Apply(base, edits)
		if err != nil {
			return keepPlan{}, nil, fmt.Errorf("merge %s: %w", f.Path.Rel, err)
		}
		return whole(fmt.Sprintf("%s was deleted or renamed while the change was pending, so there is nothing to apply it to; discard it, or put the file back and keep again", f.Path.Rel), "write the run's file back", after)
	}
	return s.planText(p, idx, cur, how)
}

// planText plans the keep of the text hunks idx of p.file over cur:
// each merged three-way (diff.RebaseEdits), a conflicted one resolved
// as how says or left pending.
func (s *Set) planText(p keepPlan, idx []int, cur tools.Document, how Resolution) (keepPlan, []Left, error) {
	f, base := p.file, p.base
	var clean, conf []int
	var cleanEdits []diff.Edit
	same := bytes.Equal(cur.Content, base)
	binary := len(f.Hunks) == 1 && isBinary(base)
	for _, h := range idx {
		e := f.Hunks[h].Edit
		if !same {
			moved, _, ok := diff.RebaseEdits(base, []diff.Edit{e}, cur.Content)
			if !ok || binary {
				conf = append(conf, h)
				continue
			}
			e = moved[0]
		}
		clean, cleanEdits = append(clean, h), append(cleanEdits, e)
	}
	var left []Left
	var resolve []int
	for _, h := range conf {
		first, last := diff.HunkLines(base, f.Hunks[h].Edit)
		why := fmt.Sprintf("%s: the user changed lines at or next to %s meanwhile", f.Path.Rel, diff.LineSpan(first, last))
		switch {
		case how == ResolveNone:
			left = append(left, Left{Hunk: f.Hunks[h].ID, Reason: why + "; their text was kept and this hunk stays pending"})
			p.news = append(p.news, fmt.Sprintf("%s is still pending: the user changed lines at or next to %s since the run made it, and their text is what the file holds there", describeHunk(f, h, base), diff.LineSpan(first, last)))
		case binary && how != ResolveTheirs && how != ResolveRun:
			left = append(left, Left{Hunk: f.Hunks[h].ID, Reason: onlyWhole(how, why, "write the run's whole file")})
		default:
			resolve = append(resolve, h)
		}
	}
	p.how = map[int]Resolution{}
	for _, h := range resolve {
		p.how[h] = how
	}
	var edits []diff.Edit
	var owners [][]int
	switch {
	case len(resolve) == 0 || how == ResolveTheirs:
		edits = cleanEdits
		for _, h := range clean {
			owners = append(owners, []int{h})
		}
	case binary:
		edits = []diff.Edit{{Start: 0, End: len(cur.Content), NewText: f.Hunks[resolve[0]].Edit.NewText}}
		owners = [][]int{resolve}
	default:
		edits, owners = s.resolveText(f, base, cur.Content, clean, cleanEdits, resolve, how)
	}
	p.chosen = append(clean, resolve...)
	slices.Sort(p.chosen)
	if len(edits) == 0 {
		p.noop = len(p.chosen) > 0
		return p, left, nil
	}
	after, err := diff.Apply(cur.Content, edits)
	if err != nil {
		return keepPlan{}, nil, fmt.Errorf("merge %s: %w", f.Path.Rel, err)
	}
	p.owners = owners
	p.change = tools.Change{Path: f.Path, Base: cur, Edits: edits, After: after, Label: "keep " + f.Path.Rel}
	return p, left, nil
}
