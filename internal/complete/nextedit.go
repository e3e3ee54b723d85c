package complete

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/diff"
)

// Next-edit suggestions: after the user edits and pauses, the model gets
// the region of the file around the last edit (and what the user changed
// there) and answers the region rewritten with the one edit it expects
// next. The answer is diffed against the region as it is, so a model
// that cannot count lines still gives an exact line range; the change
// nearest the last edit is the suggestion.

// NextInput is one next-edit suggestion to compute.
type NextInput struct {
	// Config is the resolved configuration for the document's folder.
	Config config.Config
	Doc    Doc
	// Start is the document line (0-based) where Region starts; Region
	// is the current text of the lines around the last edit, whole lines
	// with their line ends.
	Start  int
	Region string
	// Before is Region's text before the user's recent edits in it, ""
	// when it is not known (the edits went beyond it).
	Before string
	// Line is the line of the last edit (0-based, in the document).
	Line   int
	Source Source
	Filter *Filter
}

// Suggestion is one next edit: lines [Start, End) of the document (as
// it was read for NextInput) become New; Old is their text now.
type Suggestion struct {
	Start, End int
	Old, New   string
	Plan       string
}

// ErrNoEdit says the model's answer holds no edit worth showing; the
// error says why (for the log).
var ErrNoEdit = errors.New("no next edit")

// Region bounds: the lines read around the last edit, and their bytes.
const (
	NextEditLines = 20 // above and below the last edit
	NextEditBytes = 6000
)

// NextEdit asks the model for the edit that follows the user's last
// one. It returns ctx's cause when ctx ends first (ErrSuperseded for a
// newer keystroke), its HTTP request aborted.
func (e *Engine) NextEdit(ctx context.Context, in NextInput) (Suggestion, error) {
	ic := in.Config.InlineCompletion
	if !ic.NextEditOn() {
		return Suggestion{}, ErrOff
	}
	if !in.Filter.Completes(in.Doc.Path) {
		return Suggestion{}, ErrExcluded
	}
	if strings.TrimSpace(in.Region) == "" {
		return Suggestion{}, fmt.Errorf("%w: the region around the edit is blank", ErrNoEdit)
	}
	m := in.Config.CompletionModel()
	// The whole region comes back: about a token per 3 bytes, and room.
	m.MaxTokens = min(64+len(in.Region)/3*2, 4096)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	msg := nextEditMessage(in, e.Tracker)
	var raw, plan string
	var err error
	if m.Provider == config.ProviderOllama {
		plan = "next edit: generate " + m.Model
		// Neither raw nor a suffix: Ollama applies the model's own
		// template, system prompt included.
		raw, err = e.postGenerate(ctx, m, generateRequest{Model: m.Model, System: nextEditSystem, Prompt: msg,
			Options: map[string]any{"num_predict": m.MaxTokens, "temperature": temperature}})
	} else {
		plan = "next edit: chat " + m.Model
		raw, err = e.chatAsk(ctx, m, nextEditSystem, msg)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Suggestion{}, context.Cause(ctx)
		}
		return Suggestion{Plan: plan}, err
	}
	s, err := pickEdit(in, raw)
	s.Plan = plan
	return s, err
}

// chatAsk sends one chat request through the agent's providers.
func (e *Engine) chatAsk(ctx context.Context, m config.Config, system, msg string) (string, error) {
	prov, err := e.chatProvider(m)
	if err != nil {
		return "", err
	}
	res, err := prov.Complete(ctx, agent.ModelRequest{
		System:   system,
		Messages: []agent.Message{{Role: agent.RoleUser, Text: msg}},
	}, nil)
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// The answer format: the region between these tags, each on its own line.
const (
	regionOpen  = "<region>"
	regionClose = "</region>"
)

const nextEditSystem = "You predict the next edit a programmer makes, from the edits they just made. " +
	"You get a region of their file between " + regionOpen + " and " + regionClose + ". " +
	"Reply with that region rewritten with the ONE next edit they are about to make " +
	"(the other uses of what they renamed, the matching change they started, the argument they are adding), " +
	"every other line exactly as it is, between " + regionOpen + " and " + regionClose + ", and nothing else. " +
	"Never undo their edits. If no edit follows, reply with the region unchanged."

// nextEditMessage is the user message: the user's edits, then the region.
func nextEditMessage(in NextInput, t *Tracker) string {
	var b strings.Builder
	path := in.Filter.display(in.Doc.Path)
	if in.Before != "" && in.Before != in.Region {
		b.WriteString("The user just changed " + path + ":\n")
		b.WriteString(unifiedLines(in.Before, in.Region))
		b.WriteString("\n")
	}
	docs := in.Source.Docs()
	byKey := make(map[string]Doc, len(docs))
	for _, d := range docs {
		byKey[d.Key] = d
	}
	hi := in.Start + strings.Count(in.Region, "\n")
	if edits := recentEdits(in.Doc.Key, in.Start, hi, byKey, in.Source, in.Filter, t); len(edits) > 0 {
		b.WriteString("Their edits before, elsewhere (the line as it is now):\n")
		for _, e := range edits {
			b.WriteString(e + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("File " + path + " (" + in.Doc.LanguageID + "), lines " +
		fmt.Sprint(in.Start+1, "-", hi) + ":\n")
	b.WriteString(regionOpen + "\n" + in.Region)
	if !strings.HasSuffix(in.Region, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(regionClose + "\n")
	return b.String()
}

// unifiedLines is before→after as "-old"/"+new" lines of the changed
// lines only, for the model's reading.
func unifiedLines(before, after string) string {
	var b strings.Builder
	for _, e := range diff.LineEdits([]byte(before), []byte(after)) {
		for _, l := range strings.SplitAfter(before[e.Start:e.End], "\n") {
			if l != "" {
				b.WriteString("-" + strings.TrimRight(l, "\r\n") + "\n")
			}
		}
		for _, l := range strings.SplitAfter(e.NewText, "\n") {
			if l != "" {
				b.WriteString("+" + strings.TrimRight(l, "\r\n") + "\n")
			}
		}
	}
	return b.String()
}

// pickEdit parses the answer and returns the change nearest the last
// edit, or ErrNoEdit saying why there is none.
func pickEdit(in NextInput, answer string) (Suggestion, error) {
	rewritten, ok := parseRegion(answer, in.Region)
	if !ok {
		return Suggestion{}, fmt.Errorf("%w: the answer is not a %s…%s region", ErrNoEdit, regionOpen, regionClose)
	}
	edits := diff.LineEdits([]byte(in.Region), []byte(rewritten))
	if len(edits) == 0 {
		return Suggestion{}, fmt.Errorf("%w: the region came back unchanged", ErrNoEdit)
	}
	if in.Before != "" && rewritten == in.Before {
		return Suggestion{}, fmt.Errorf("%w: the answer undoes the user's edit", ErrNoEdit)
	}
	undo := diff.LineEdits([]byte(in.Region), []byte(in.Before))
	last := in.Line - in.Start
	best, bestDist := -1, 0
	for i, e := range edits {
		if in.Before != "" && isUndo(e, undo) {
			continue
		}
		first, end := lineOf(in.Region, e.Start), lineOf(in.Region, e.End)
		d := 0
		switch {
		case last < first:
			d = first - last
		case last >= end && end > first:
			d = last - end + 1
		case last > first && end == first: // an insertion before the last edit's line
			d = last - first
		}
		if best < 0 || d < bestDist {
			best, bestDist = i, d
		}
	}
	if best < 0 {
		return Suggestion{}, fmt.Errorf("%w: the answer only undoes the user's edit", ErrNoEdit)
	}
	e := edits[best]
	s := Suggestion{
		Start: in.Start + lineOf(in.Region, e.Start),
		End:   in.Start + lineOf(in.Region, e.End),
		Old:   in.Region[e.Start:e.End],
		New:   e.NewText,
	}
	if e.End == len(in.Region) && !strings.HasSuffix(in.Region, "\n") && e.End > e.Start {
		s.End++ // the document's last line, which has no line end
	}
	return s, nil
}

// isUndo reports whether e puts back what one of the user's own edits
// (undo: the edits from the region now to the region before) took away.
func isUndo(e diff.Edit, undo []diff.Edit) bool {
	for _, u := range undo {
		if e == u {
			return true
		}
	}
	return false
}

// lineOf is the 0-based line of offset off in s.
func lineOf(s string, off int) int { return strings.Count(s[:off], "\n") }

// parseRegion returns the rewritten region of answer: the text between
// the last regionOpen line and the regionClose after it, in region's
// line ends, false if the answer has no such region.
func parseRegion(answer, region string) (string, bool) {
	a := strings.ReplaceAll(answer, "\r\n", "\n")
	i := strings.LastIndex(a, regionOpen)
	if i < 0 {
		return "", false
	}
	a = a[i+len(regionOpen):]
	j := strings.Index(a, regionClose)
	if j < 0 {
		return "", false
	}
	a = strings.TrimPrefix(a[:j], "\n")
	if a != "" && !strings.HasSuffix(a, "\n") {
		a += "\n"
	}
	if !strings.HasSuffix(region, "\n") {
		a = strings.TrimSuffix(a, "\n")
	}
	if strings.Contains(region, "\r\n") {
		a = strings.ReplaceAll(a, "\n", "\r\n")
	}
	return a, true
}
