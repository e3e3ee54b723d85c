package complete

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
)

// timeout bounds one completion: past it the user has long typed on.
const timeout = 30 * time.Second

// Engine answers completions; one serves a connection. Safe for
// concurrent use.
type Engine struct {
	// Tracker is the editor's edit history and the requests it
	// supersedes; the LSP server feeds it every didChange.
	Tracker *Tracker
	log     *slog.Logger
	http    *http.Client

	mu      sync.Mutex
	chat    agent.Provider
	chatKey string
}

// NewEngine returns an engine over a new Tracker.
func NewEngine(log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{Tracker: NewTracker(), log: log, http: &http.Client{}}
}

// Input is one completion to answer.
type Input struct {
	// Config is the resolved configuration for the document's folder
	// (config.Load: the project's settings only when it is trusted).
	Config  config.Config
	Request Request
	Source  Source
	Filter  *Filter
}

// Result is a completion: the text to insert at the cursor ("" for
// none), and how it was asked (for the log).
type Result struct {
	Text string
	Plan string
}

// ErrOff says completions are not enabled (inlineCompletion.enabled).
var ErrOff = errors.New("completions are off (inlineCompletion.enabled)")

// ErrExcluded says the file is never completed: a secret or gitignored.
var ErrExcluded = errors.New("the file is a secret or ignored: never completed")

// Complete answers in. It returns ctx's cause when ctx ends first
// (ErrSuperseded for a newer keystroke), its HTTP request aborted.
func (e *Engine) Complete(ctx context.Context, in Input) (Result, error) {
	ic := in.Config.InlineCompletion
	if !ic.On() {
		return Result{}, ErrOff
	}
	if !in.Filter.Completes(in.Request.Doc.Path) {
		return Result{}, ErrExcluded
	}
	if ic.DebounceMs > 0 {
		t := time.NewTimer(time.Duration(ic.DebounceMs) * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Result{}, context.Cause(ctx)
		}
	}
	m := in.Config.CompletionModel()
	m.MaxTokens = maxTokens(ic.Lines())
	p := Build(in.Request, in.Source, in.Filter, e.Tracker).fit(agent.ContextWindow(m) - m.MaxTokens)
	pl := choose(m, ic.Format())
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := e.ask(ctx, m, pl, p)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, context.Cause(ctx)
		}
		return Result{Plan: pl.String()}, err
	}
	return Result{Text: trim(raw, p, ic.Lines(), pl.wire == wireChat), Plan: pl.String()}, nil
}

// maxTokens bounds the answer by the lines it may keep: about 40 tokens
// a line, so a model that would write a whole file stops early.
func maxTokens(lines int) int { return min(max(64, 40*lines), 2048) }
