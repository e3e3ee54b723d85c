package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// Long runs: before a request would pass compactAt of the model's
// context window, the conversation is made smaller, cheapest first:
//
//  1. large tool outputs older than the last turn are trimmed to their
//     first lines (the model has seen them and acted on them);
//  2. if that is not enough, the turns between the task and the last
//     keepTurns turns are replaced by a summary the model writes (one
//     extra request, announced by an EventCompact).
//
// The task (the first message) and the system prompt are kept. The kept
// tail starts with an assistant turn, so every tool result still follows
// its call in both wire formats. Afterwards the run's FileStates stop
// answering "unchanged" for earlier reads: their content may be gone.

// keepTurns is how many of the last assistant turns (with their results)
// a summary keeps verbatim; trimming keeps only trimKeepTurns.
const (
	keepTurns     = 2
	trimKeepTurns = 1
)

// trimAbove is the size of a tool output worth trimming; trimKeep is
// how much of its start is kept.
const (
	trimAbove = 2 << 10
	trimKeep  = 512
)

// trimmedNote ends a trimmed output.
const trimmedNote = "\n[… %d of %d bytes trimmed to save context; call the tool again if you need them]"

// summaryPrompt asks for the summary that replaces older turns.
const summaryPrompt = "The conversation above is a coding agent's work on the task in the first message. " +
	"It is too long for the model's context and will be replaced by your summary. " +
	"Write that summary now, for the agent to continue from: what was found (files, functions, facts that matter), " +
	"what was changed and where, what failed and why, and what is left to do. " +
	"Be specific and complete but brief; do not call tools."

// summaryHeading introduces the summary in the task message.
const summaryHeading = "\n\n## Summary of the work so far (earlier turns were compacted)\n\n"

// fit makes req fit the budget before a model turn. force compacts even
// if the estimate says it fits (the provider said it does not). It
// reports whether req changed.
func (l *loop) fit(ctx context.Context, step int, req *ModelRequest, force bool) (bool, error) {
	b := l.budget
	if !force && !b.over(req, compactAt) {
		return false, nil
	}
	before := b.tokens(req)
	n := l.trim(req, len(req.Messages)-tailStart(req.Messages, trimKeepTurns))
	if n > 0 && !force && !b.over(req, compactAt) {
		l.announce(step, fmt.Sprintf("Trimmed %d old tool outputs to fit the context window (about %d → %d of %d tokens).", n, before, b.tokens(req), b.window))
		return true, nil
	}
	changed, err := l.compact(ctx, step, req, before)
	return changed || n > 0, err
}

// trim shortens large tool outputs of req.Messages, except those of the
// last keep messages, and returns how many it trimmed.
func (l *loop) trim(req *ModelRequest, keep int) int {
	n := 0
	end := len(req.Messages) - keep
	for i := 1; i < end; i++ {
		m := &req.Messages[i]
		changed := false
		for j := range m.ToolResults {
			if out, ok := trimOutput(m.ToolResults[j].Output); ok {
				if !changed {
					m.ToolResults = append([]ToolResult(nil), m.ToolResults...) // never write through to a caller's slice
					changed = true
				}
				m.ToolResults[j].Output = out
				n++
			}
		}
		if changed {
			l.budget.reset(i)
		}
	}
	if n > 0 {
		l.forgetReads()
	}
	return n
}

func trimOutput(s string) (string, bool) {
	if len(s) <= trimAbove || strings.HasSuffix(s, "call the tool again if you need them]") {
		return s, false
	}
	kept := truncateText(s, trimKeep)
	kept = strings.TrimSuffix(kept, "…")
	if i := strings.LastIndexByte(kept, '\n'); i > 0 {
		kept = kept[:i]
	}
	return kept + fmt.Sprintf(trimmedNote, len(s)-len(kept), len(s)), true
}

// compact replaces the turns between the task and the kept tail with a
// summary. Turns in the tail are trimmed too if the result still does
// not fit.
func (l *loop) compact(ctx context.Context, step int, req *ModelRequest, before int) (bool, error) {
	msgs := req.Messages
	start := tailStart(msgs, keepTurns)
	if start <= 1 {
		// Nothing between the task and the last turns: only trimming is
		// left, and cutting the results the model has not seen yet.
		n := l.trim(req, 1)
		if l.budget.over(req, compactTo) {
			n += l.fitLatest(req)
		}
		if n > 0 {
			l.announce(step, fmt.Sprintf("Trimmed %d tool outputs to fit the context window (about %d → %d of %d tokens).", n, before, l.budget.tokens(req), l.budget.window))
		}
		return n > 0, nil
	}
	summary, err := l.summarise(ctx, req, msgs[1:start])
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		slog.Warn("agent: summary for compaction failed; dropping the older turns without one", "error", err)
		summary = fmt.Sprintf("(%d earlier messages were removed to fit the context window; summarising them failed: %v)", start-1, err)
	}
	task := msgs[0]
	base, _, _ := strings.Cut(task.Text, summaryHeading) // a second compaction replaces the first summary
	task.Text = base + summaryHeading + strings.TrimSpace(summary)
	out := make([]Message, 0, 1+len(msgs)-start)
	out = append(out, task)
	out = append(out, msgs[start:]...)
	req.Messages = out
	l.budget.reset(0)
	l.forgetReads()
	if l.budget.over(req, compactTo) {
		l.trim(req, 1)
		if l.budget.over(req, compactTo) {
			l.fitLatest(req)
		}
	}
	text := fmt.Sprintf("Compacted the conversation to fit the context window: %d earlier messages replaced by a summary (about %d → %d of %d tokens).",
		start-1, before, l.budget.tokens(req), l.budget.window)
	slog.Debug("agent: "+text, "step", step)
	l.emit(Event{Kind: EventCompact, Step: step, Text: text, Summary: strings.TrimSpace(summary)})
	return true, nil
}

// summarise asks the model for a summary of older (a run of messages
// from an assistant turn to a user turn). The request offers no tools,
// carries the history as text, and keeps only as much of it, newest
// first, as fits compactTo of the window.
func (l *loop) summarise(ctx context.Context, req *ModelRequest, older []Message) (string, error) {
	hist := withoutToolHistory(older)
	sreq := ModelRequest{System: req.System, Messages: []Message{req.Messages[0]}}
	room := int(compactTo*float64(l.budget.window)*l.budget.perToken) - l.budget.bytes(&ModelRequest{System: req.System, Messages: sreq.Messages})
	first := len(hist)
	for used := 0; first > 0; first-- {
		used += messageLen(hist[first-1])
		if used > room {
			break
		}
	}
	// Alternate roles as the providers require: the kept part starts with
	// an assistant message (the task is the user's).
	for first < len(hist) && hist[first].Role != RoleAssistant {
		first++
	}
	if first > 0 {
		sreq.Messages[0].Text += fmt.Sprintf("\n\n(%d older messages are left out of this summary request.)", first)
	}
	sreq.Messages = append(sreq.Messages, hist[first:]...)
	if last := sreq.Messages[len(sreq.Messages)-1]; last.Role == RoleUser {
		sreq.Messages[len(sreq.Messages)-1].Text = strings.TrimSpace(last.Text + "\n\n" + summaryPrompt)
	} else {
		sreq.Messages = append(sreq.Messages, Message{Role: RoleUser, Text: summaryPrompt})
	}
	resp, err := l.prov.Complete(ctx, sreq, nil)
	if err != nil {
		return "", err
	}
	u := resp.Usage
	l.extraUsage.add(u)
	l.emit(Event{Kind: EventUsage, Step: l.step, Usage: &u})
	if strings.TrimSpace(resp.Text) == "" {
		return "", errors.New("the model answered with an empty summary")
	}
	return resp.Text, nil
}

// tailStart returns the index of the first message of the last turns
// assistant turns: an assistant message, so that the results that
// follow it keep their calls. It is len(msgs) when there is none.
func tailStart(msgs []Message, turns int) int {
	i := len(msgs)
	for k := len(msgs) - 1; k >= 1 && turns > 0; k-- {
		if msgs[k].Role == RoleAssistant {
			i = k
			turns--
		}
	}
	return i
}

// forgetReads stops the run's FileStates from answering "unchanged":
// what the model read may no longer be in the conversation.
func (l *loop) forgetReads() {
	if l.states != nil {
		l.states.ForgetAll()
	}
}

// announce tells the front end (and so the transcript) what trimming did.
func (l *loop) announce(step int, text string) {
	slog.Debug("agent: "+text, "step", step)
	l.emit(Event{Kind: EventCompact, Step: step, Text: text})
}

// completeFitting runs one model turn on a request that fits the
// window: it compacts first when the estimate says the request would not
// fit, and once more, then retries, when the provider says so.
func (l *loop) completeFitting(ctx context.Context, step int, req *ModelRequest) (ModelResponse, error) {
	if _, err := l.fit(ctx, step, req, false); err != nil {
		return ModelResponse{}, err
	}
	resp, err := l.complete(ctx, step, *req)
	if err != nil && errors.Is(err, ErrContextLength) && ctx.Err() == nil {
		slog.Warn("agent: the provider refused the request as too long; compacting and retrying once", "step", step, "error", err)
		l.budget.refused(req)
		changed, ferr := l.fit(ctx, step, req, true)
		if ferr != nil {
			return ModelResponse{}, ferr
		}
		if changed { // else nothing could be left out: the refusal stands
			resp, err = l.complete(ctx, step, *req)
		}
	}
	if err == nil {
		l.budget.calibrate(req, resp.Usage.InputTokens)
	}
	return resp, err
}
