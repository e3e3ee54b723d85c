package agent

import (
	"context"
	"log/slog"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// runContext is what a run's model sees besides the conversation: the
// system prompt with the project's rules, which grow as the run touches
// files in directories with rules of their own.
type runContext struct {
	base  string // SystemPrompt's text
	rules *rules
}

func newRunContext(ctx context.Context, files ProjectFiles, workRoot, base, taskPath string) *runContext {
	rc := &runContext{base: base, rules: newRules(ctx, files, workRoot, UserRulesFile())}
	rc.rules.touch(ctx, taskPath)
	return rc
}

// system is the system prompt: the base text, then the rules.
func (rc *runContext) system() string { return rc.base + rc.rules.section() }

// prepare brings req up to date before model turn step: the rules file
// nearest to each file the run read or wrote since the last turn joins
// the system prompt. That changes the prompt's prefix (a prompt cache
// misses once), which happens at most once per new rules file. Reads of
// files that changed since and were left alone give way to a note
// (stale.go).
func (l *loop) prepare(ctx context.Context, step int, req *ModelRequest) {
	l.replaceStale(step, req)
	if states := filestate.FromContext(ctx); states != nil && step > 1 {
		if l.ctx.rules.touch(ctx, states.Paths()...) {
			req.System = l.ctx.system()
			slog.Debug("agent: rules files added", "step", step, "rules", l.ctx.rules.labels())
			l.emit(Event{Kind: EventRules, Step: step, Rules: l.ctx.rules.labels()})
		}
	}
}
