package headless

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// At the end of cb-ls run, the run's pending change set: kept at once
// with --yes; on a terminal shown and asked about once (keep all,
// discard all, file by file, hunk by hunk, or leave it); otherwise left
// pending, for `cb-ls changes` to show, keep or discard later (a CI job
// runs the agent and a person reviews afterwards). Nothing is refused
// and nothing is lost: an unanswered question leaves the set pending.

// endChoices is the one question at the end of a run.
const endChoices = "[k]eep all, [d]iscard all, [f]ile by file, [h]unk by hunk, [l]eave pending (default)"

// finishSet settles set as o says; it returns the exit status's
// complaint ("" when all is well).
//
// ws is cb-ls run's own Workspace: with --yes it notes the files that
// run later, which the summary names.
func finishSet(ctx context.Context, o Options, set *changeset.Set, p *prompter, ws tools.Workspace, stderr io.Writer) string {
	if set == nil || len(set.Files()) == 0 {
		return ""
	}
	disk := tools.DiskWorkspace{}
	switch {
	case ctx.Err() != nil:
		// Interrupted: nothing is decided for the user.
	case o.Yes:
		res, err := set.Keep(ctx, changeset.Selection{}, ws)
		keepReport(stderr, res)
		if err != nil {
			return err.Error()
		}
	case o.Terminal:
		if err := askAtEnd(ctx, set, p, disk, stderr); err != nil {
			return err.Error()
		}
	}
	if files := set.Files(); len(files) > 0 {
		fmt.Fprintf(stderr, "cb-ls run: %d change(s) of run %s are pending; see them with `cb-ls changes %s`, keep them with `cb-ls changes --keep %s`, or discard them with `cb-ls changes --discard %s`\n",
			set.Count(), set.RunID(), set.RunID(), set.RunID(), set.RunID())
	}
	return ""
}

// askAtEnd shows set and asks once what to do with it.
func askAtEnd(ctx context.Context, set *changeset.Set, p *prompter, ws tools.Workspace, out io.Writer) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	showSet(ctx, &b, set, showOptions{})
	fmt.Fprintf(&b, "\nThe run's changes are pending. %s? ", endChoices)
	answer, err := p.ask(ctx, b.String())
	if err != nil {
		return nil // no answer: the set stays pending
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "k", "keep":
		res, err := set.Keep(ctx, changeset.Selection{}, ws)
		keepReport(out, res)
		return err
	case "d", "discard":
		ids, err := set.Discard(changeset.Selection{})
		fmt.Fprintf(out, "discarded %d change(s)\n", len(ids))
		return err
	case "f", "file":
		return oneByOne(ctx, set, p, ws, out, false)
	case "h", "hunk":
		return oneByOne(ctx, set, p, ws, out, true)
	}
	return nil
}

// oneByOne asks about each file (or each hunk): y keeps, n discards,
// anything else leaves it pending. The decisions are applied together
// at the end: one keep, one discard.
func oneByOne(ctx context.Context, set *changeset.Set, p *prompter, ws tools.Workspace, out io.Writer, hunks bool) error {
	var keep, drop changeset.Selection
	for _, f := range set.Files() {
		if !hunks || f.Group != nil {
			var b strings.Builder
			showFile(ctx, &b, set, f, false)
			fmt.Fprintf(&b, "Keep %s? [y]es, [n]o (discard), [l]eave pending ", diff.QuoteName(f.Path.Rel))
			answer, err := p.ask(ctx, b.String())
			if err != nil {
				break
			}
			switch strings.ToLower(strings.TrimSpace(answer)) {
			case "y", "yes":
				keep.Files = append(keep.Files, f.Path)
			case "n", "no":
				drop.Files = append(drop.Files, f.Path)
			}
			continue
		}
		for i, h := range f.Hunks {
			var b strings.Builder
			if i == 0 {
				fmt.Fprintf(&b, "\n%s (%s)\n", diff.QuoteName(f.Path.Rel), f.Kind)
			}
			showHunk(&b, set.RunID(), f.Path.Rel, h, false)
			fmt.Fprintf(&b, "Keep this hunk? [y]es, [n]o (discard), [l]eave pending ")
			answer, err := p.ask(ctx, b.String())
			if err != nil {
				break
			}
			switch strings.ToLower(strings.TrimSpace(answer)) {
			case "y", "yes":
				keep.Hunks = append(keep.Hunks, h.ID)
			case "n", "no":
				drop.Hunks = append(drop.Hunks, h.ID)
			}
		}
	}
	if len(drop.Files)+len(drop.Hunks) > 0 {
		ids, err := set.Discard(drop)
		fmt.Fprintf(out, "discarded %d change(s)\n", len(ids))
		if err != nil {
			return err
		}
	}
	if len(keep.Files)+len(keep.Hunks) > 0 {
		res, err := set.Keep(ctx, keep, ws)
		keepReport(out, res)
		return err
	}
	return nil
}
