package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/session"
)

// Run is one conversation: the first request and the replies to it. Its
// turns run one at a time (the front end makes sure of that); Snapshot
// may be called while one goes on.
type Run struct {
	// ID names the run everywhere: the editor, the command line, its
	// session file.
	ID string
	// Command is the run's command; a reply may update it from the
	// current configuration.
	Command config.Command
	// Turn is the number of the turn going on, or of the last one (1 for
	// the first request). Begin advances it.
	Turn int
	// Messages is the conversation so far (what a reply continues).
	Messages []agent.Message
	// Log stores the conversation; nil stores nothing (no workspace
	// folder to keep its session for).
	Log *session.Log
	// Changes is the run's pending change set (review "pending"), set
	// by its first turn; nil when its changes are reviewed before they
	// land.
	Changes *changeset.Set

	header  session.Header
	prior   string // the transcript of the turns before this one
	started time.Time

	mu sync.Mutex
	tr *session.Transcript // this turn's
}

// NewRun starts a conversation whose session is stored under root ("":
// not stored). h describes it (its RunID, if empty, is made here).
func NewRun(root string, cmd config.Command, h session.Header) *Run {
	if h.RunID == "" {
		h.RunID = session.NewRunID()
	}
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	h.Command, h.Title = cmd.ID, cmd.Title
	r := &Run{ID: h.RunID, Command: cmd, header: h, started: h.Started}
	if root != "" {
		r.Log = session.NewLog(root, h)
	}
	return r
}

// ResumeRun continues a stored run: its conversation, its session file
// and its transcript go on where they stopped.
func ResumeRun(s *session.Session) *Run {
	r := &Run{ID: s.RunID, Command: config.Command{ID: s.Command, Title: s.Title}, Turn: s.Turns,
		Messages: s.Messages, Log: s.Log(), header: s.Header, started: s.Started}
	if md, err := os.ReadFile(session.TranscriptPath(s.Summary.Log)); err == nil {
		r.prior = string(md)
	}
	return r
}

// Header is what the run's session says about it.
func (r *Run) Header() session.Header { return r.header }

// Begin advances Turn for the next turn and returns its number.
func (r *Run) Begin() int {
	r.Turn++
	return r.Turn
}

// Turn is one request to a Run: the first (Task) or a reply (Input).
type Turn struct {
	// Config is the resolved configuration this turn runs with.
	Config config.Config
	// Provider, if set, is used instead of the one Config names (one the
	// front end built early, to refuse a bad configuration at once).
	Provider agent.Provider
	// Task is the first turn's request; a reply has only Input.
	Task agent.Task
	// Input is the user's text: a reply's message, or the first
	// request's instruction (for the transcript).
	Input string
	// Emit, if set, gets every event of the turn as it happens.
	Emit func(agent.Event)
}

// Result is how a turn ended and what became of it.
type Result struct {
	agent.Outcome
	// Err is the agent's error (nil when done); a cancelled turn has the
	// context's cause.
	Err error
	// Status is "done", "cancelled" or "error".
	Status string
	// Record is the turn as stored: outcome, tokens, changed files.
	Record session.Turn
	// Stored is whether the conversation was stored (it can be
	// continued after a restart); StoreErr says why not, when it was
	// attempted. A turn refused before the model was asked stores
	// nothing.
	Stored   bool
	StoreErr error
	// ReviewNote, the first time a run of this App falls back from
	// review "pending" to "before", says why (the front end shows it).
	ReviewNote string
	// TranscriptPath is the run's markdown, once written.
	TranscriptPath string
	TranscriptErr  error
}

// Do runs one turn of r: the agent with the registry and the guard,
// every event rendered into the transcript and passed to t.Emit, then the
// conversation stored and the transcript written beside it. The run's
// FileStates, if the front end keeps them across turns, go in ctx
// (filestate.NewContext).
func (a *App) Do(ctx context.Context, r *Run, t Turn) Result {
	if r.Turn == 0 {
		r.Turn = 1
	}
	cfg := t.Config
	header := session.TranscriptHeader{RunID: r.ID, Command: r.Command.ID, Title: r.Command.Title,
		File: r.header.File, StartLine: t.Task.StartLine, EndLine: t.Task.EndLine, Model: cfg.Model, Input: t.Input, Started: r.started}
	if r.Turn > 1 {
		header.Title = fmt.Sprintf("%s — reply %d", r.Command.Title, r.Turn-1)
		header.Started = time.Now()
	}
	r.mu.Lock()
	r.tr = session.NewTranscript(header)
	r.mu.Unlock()

	ctx, set, note := a.pendingView(ctx, r, cfg)
	if set != nil {
		r.Changes = set
	}
	runner := &agent.Runner{Registry: a.Registry, Config: cfg, WorkRoot: a.Guard.WorkRoot, Provider: t.Provider, Files: a.Tools, Headless: a.opts.Headless}
	var changed []string
	emit := func(ev agent.Event) {
		for _, e := range ev.Edits {
			if p := a.display(e.Path, e.Rel); !ev.IsError && !slices.Contains(changed, p) {
				changed = append(changed, p)
			}
		}
		r.mu.Lock()
		r.tr.Add(ev)
		r.mu.Unlock()
		if t.Emit != nil {
			t.Emit(ev)
		}
	}
	res := Result{ReviewNote: note}
	if r.Turn == 1 {
		res.Outcome, res.Err = runner.Run(ctx, t.Task, emit)
	} else {
		input := t.Input
		if set != nil {
			// What the user kept or discarded since the last turn.
			if news := set.TakeNews(); news != "" {
				input = "[" + news + "]\n\n" + input
			}
		}
		res.Outcome, res.Err = runner.Reply(ctx, r.Command.ID, r.Messages, input, emit)
	}
	res.Status = "done"
	switch {
	case res.Err != nil && ctx.Err() != nil:
		res.Status = "cancelled"
		res.Err = context.Cause(ctx)
	case res.Err != nil:
		res.Status = "error"
	}
	a.logLanguageServers(r.ID)
	res.Record = session.Turn{Input: t.Input, Outcome: res.Status, Error: errorText(res.Err), Steps: res.Steps,
		Usage: res.Usage, Files: changed, Ended: time.Now()}
	if len(res.Messages) > 0 {
		r.Messages = res.Messages
	}
	if len(r.Messages) == 0 {
		return res // refused before the model was asked: nothing to store
	}
	r.mu.Lock()
	text := session.JoinTurns(r.prior, r.tr.Finish(res.Status, res.Outcome, res.Err))
	r.mu.Unlock()
	r.prior = text
	if r.Log == nil {
		res.StoreErr = errNoFolder
		res.TranscriptErr = errNoFolder
		return res
	}
	if res.StoreErr = r.Log.AppendTurn(r.Messages, res.Record, cfg.APIKey); res.StoreErr == nil {
		res.Stored = true
	}
	res.TranscriptPath, res.TranscriptErr = r.Log.WriteTranscript(text, cfg.APIKey)
	return res
}

// errNoFolder is why a run without a workspace folder keeps nothing.
var errNoFolder = errors.New("no workspace folder: a run's session is kept per folder, and this run has none")

// Snapshot writes the transcript of the turn going on, as far as it got,
// and returns its path: for a front end that shows a run while it runs.
// Any of secrets is blanked.
func (r *Run) Snapshot(secrets ...string) (string, error) {
	r.mu.Lock()
	if r.tr == nil {
		r.mu.Unlock()
		return "", errors.New("run " + r.ID + " has not started")
	}
	text := r.tr.Snapshot("running")
	r.mu.Unlock()
	if r.Log == nil {
		return "", errNoFolder
	}
	return r.Log.WriteTranscript(text, secrets...)
}

// display is how a changed file is named in the turn's record.
func (a *App) display(path, rel string) string {
	if a.opts.DisplayPath != nil {
		return a.opts.DisplayPath(path)
	}
	if rel != "" {
		return rel
	}
	if r, err := filepath.Rel(a.Guard.WorkRoot(), path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
