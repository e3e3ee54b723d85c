package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/session"
)

// Agent runs in the editor. catbuddy.run answers with a run id at once;
// the run goes on in its own goroutine, reports through $/progress,
// catbuddy/runEvent and window/showMessage, and writes a transcript. Its
// edits travel through the same reviewed workspace/applyEdit path as
// catbuddy.runTool's, because the agent reaches files only through the
// connection's registry and workspace.

// Commands of this file, as announced in the initialize result.
const (
	cmdRun          = "catbuddy.run"
	cmdCancel       = "catbuddy.cancel"
	cmdListCommands = "catbuddy.listCommands"
	cmdTranscript   = "catbuddy.transcript"
	cmdReply        = "catbuddy.reply"
	cmdListRuns     = "catbuddy.listRuns"
)

// runs tracks the connection's agent runs. Runs whose changes are
// pending may share a document; a run that reviews each change before it
// lands (review: "before") holds its document alone.
type runs struct {
	s *Server

	mu     sync.Mutex
	active map[string]*run // by id
	byDoc  map[string]*run // review-before runs by document path ("" for free questions is never locked)
	ended  map[string]string
	idle   map[string]*run // ended runs of this connection, ready for a reply
	last   string          // id of the most recent run, for catbuddy.transcript without runId
	ledgers
}

// run is one agent run: a conversation of one or more turns (the first
// request, then each catbuddy.reply), kept by app.Run. While a turn goes
// on, its execute goroutine owns the conversation; between turns rs.mu
// does.
type run struct {
	*app.Run
	target  target
	started time.Time
	cancel  context.CancelCauseFunc // this turn's; set under rs.mu before it starts
	done    chan struct{}           // likewise
	// stopReview withdraws this turn's end-of-turn review while it waits
	// (review_cancel.go); nil otherwise. Guarded by rs.mu.
	stopReview context.CancelCauseFunc

	states *filestate.FileStates // what the model read and wrote, across turns
	sum    session.Summary       // for catbuddy.listRuns

	mu         sync.Mutex // guards transcript
	transcript string     // path once written

	// ledger records the files the run changed, across its turns, and
	// their content before it, for catbuddy.undoRun.
	ledger *filestate.Ledger
}

// errCancelledByUser is the cause of a run cancelled from the editor.
var errCancelledByUser = errors.New("cancelled by the user")

// registerRunCommands installs catbuddy.run and its companions, and the
// code actions for explain and custom commands. Called from newServer.
func (s *Server) registerRunCommands() {
	rs := &runs{s: s, active: map[string]*run{}, byDoc: map[string]*run{}, ended: map[string]string{}, idle: map[string]*run{}}
	s.registerCommand(cmdRun, func(ctx context.Context, args []json.RawMessage) (any, error) {
		return rs.start(ctx, rawArgs(args), "")
	})
	s.registerCommand(CmdFix, func(ctx context.Context, args []json.RawMessage) (any, error) {
		return rs.start(ctx, rawArgs(args), "fix")
	})
	s.registerCommand(cmdCancel, rs.cancelCommand)
	s.registerCommand(cmdListCommands, func(ctx context.Context, args []json.RawMessage) (any, error) {
		return rs.commandList(ctx), nil
	})
	s.registerCommand(cmdTranscript, rs.transcriptCommand)
	s.registerCommand(cmdReply, rs.replyCommand)
	s.registerCommand(cmdListRuns, rs.listRunsCommand)
	s.registerCommand(cmdUndoRun, rs.undoCommand)
	rs.registerPendingCommands()
	s.addCodeActions(rs.codeActions)
}

func rawArgs(args []json.RawMessage) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

// start validates a run request, claims its document and starts the run
// in the background. Everything that can be refused is refused here, so
// the editor gets the error as the command's answer, not later.
func (rs *runs) start(ctx context.Context, args [][]byte, implied string) (any, error) {
	s := rs.s
	a, err := decodeRunArgs(args, implied)
	if err != nil {
		return nil, err
	}
	var t target
	if a.URI != "" {
		if t, err = s.resolveTarget(ctx, a.URI); err != nil {
			return nil, err
		}
	}
	s.syncMode() // the project's files or their trust may have changed
	editor := rs.config(ctx, a.URI)
	if s.opts.OnRunConfig != nil {
		s.opts.OnRunConfig(editor)
	}
	cfg, err := config.LoadConfig(s.rootFor(t.path), editor)
	if err != nil {
		return nil, err
	}
	cmd, ok := config.FindCommand(cfg, a.Command)
	if !ok {
		return nil, invalidParams("unknown command %q (catbuddy.listCommands lists them)", a.Command)
	}
	// Building the provider checks the configuration without a request:
	// an unusable one is refused now, as the command's answer.
	prov, err := agent.NewProvider(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd.Title, err)
	}
	task := buildTask(a, t, s.PositionEncoding())

	conv := app.NewRun(s.rootFor(t.path), cmd, session.Header{Path: t.path, File: t.rel, Input: a.Input,
		Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, MaxSteps: cfg.MaxSteps})
	conv.Begin()
	r := &run{Run: conv, target: t, started: conv.Header().Started, states: s.NewFileStates(), ledger: filestate.NewLedger()}
	r.sum.Header = conv.Header()
	if conv.Log != nil {
		r.sum.Log = conv.Log.Path
	}
	// The request's context ends when this handler returns; the run lives
	// until it finishes, is cancelled, or the connection goes away.
	runCtx, err := rs.claim(ctx, r, exclusive(cfg), func() { rs.keepLedger(r.ID, r.ledger) })
	if err != nil {
		return nil, err
	}
	go rs.execute(runCtx, r, task, cfg, prov, a)
	return map[string]string{"runId": r.ID}, nil
}

// claim makes r active for a new turn. An exclusive turn (review
// "before") holds its document and is refused when another exclusive
// one holds it. prepare runs under the lock once the claim succeeded.
// The turn's context lives until it finishes, is cancelled, or the
// connection goes away.
func (rs *runs) claim(ctx context.Context, r *run, exclusive bool, prepare func()) (context.Context, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if _, going := rs.active[r.ID]; going {
		return nil, fmt.Errorf("%w: run %s is still going; wait for it to end or %s", errRunBusy, r.ID, cancelHint(r.ID))
	}
	if t := r.target; t.path != "" && exclusive {
		if other, busy := rs.byDoc[t.path]; busy {
			return nil, fmt.Errorf("%w: %s, started %s ago on %s; wait for it to end or %s",
				errRunBusy, other.Command.Title, time.Since(other.started).Round(time.Second), t.rel, cancelHint(other.ID))
		}
	}
	prepare()
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	r.cancel, r.done = cancel, make(chan struct{})
	delete(rs.idle, r.ID)
	rs.active[r.ID] = r
	if r.target.path != "" && exclusive {
		rs.byDoc[r.target.path] = r
	}
	rs.last = r.ID
	go rs.watchConnection(r.done, cancel)
	return runCtx, nil
}

// watchConnection cancels a turn when the connection ends.
func (rs *runs) watchConnection(done <-chan struct{}, cancel context.CancelCauseFunc) {
	select {
	case <-done:
	case <-rs.s.exitCh:
		cancel(errors.New("the editor disconnected"))
	case <-rs.s.conn.Done():
		cancel(errors.New("the editor disconnected"))
	}
}

// execute runs the agent and reports its end. It owns r until it returns.
// A turn after the first (a reply) has only a.Input: the conversation
// carries the rest.
func (rs *runs) execute(ctx context.Context, r *run, task agent.Task, cfg config.Config, prov agent.Provider, a runArgs) {
	s := rs.s
	cancel, done := r.cancel, r.done // a later turn replaces them
	defer func() {
		rs.release(r, done) // already done on the normal path; this covers a panic
		cancel(nil)
		close(done)
	}()
	rep := newRunReporter(s, r)
	rep.begin(ctx, a, func() { rs.cancelTurn(r, done, errCancelledByUser) })

	// The run's FileStates carry over from turn to turn: what the model
	// read stays deduplicated, and "read before edit" stays satisfied.
	// Edits made by the run report on its progress too (see onEdit).
	runCtx := withRunID(withProgress(filestate.NewContext(ctx, r.states), rep.progress), r.ID)
	runCtx = filestate.NewLedgerContext(runCtx, r.ledger)
	runCtx = agent.WithModelWait(runCtx, &rep.pr.wait)
	res := s.assembly().Do(runCtx, r.Run, app.Turn{Config: cfg, Provider: prov, Task: task, Input: a.Input,
		Emit: func(ev agent.Event) { rep.event(ctx, ev) }})
	rs.remember(r, res)
	if res.ReviewNote != "" {
		s.showMessage(ctx, protocol.MessageTypeWarning, "cb-ls: "+res.ReviewNote)
	}
	// A client that cannot show pending changes reviews them now, before
	// it hears that the turn ended. A cancel withdraws the review.
	reviewCtx, endReview := rs.beginReview(ctx, r, done, res.Status != "cancelled")
	told := rs.reviewTurn(reviewCtx, r)
	endReview()
	files := rep.files()
	// The document is free before anyone hears that the run ended, so a
	// client may start the next run as soon as it sees the end, or reply
	// as soon as it reads how the review went.
	rs.release(r, done)
	for _, m := range told {
		s.showMessage(ctx, m.Type, m.Message)
	}
	rep.end(ctx, res.Status, res.Outcome, res.Err, res.TranscriptPath, files)
}

// release frees r's document and records where its transcript went, if
// the turn whose done channel is given still holds it. It may be called
// more than once: once released, a reply may start r's next turn, which
// a late call for the earlier turn must leave alone.
func (rs *runs) release(r *run, done chan struct{}) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.active[r.ID] != r || r.done != done {
		return
	}
	delete(rs.active, r.ID)
	if rs.byDoc[r.target.path] == r {
		delete(rs.byDoc, r.target.path)
	}
	rs.idle[r.ID] = r
	r.mu.Lock()
	if r.transcript != "" {
		rs.ended[r.ID] = r.transcript
	}
	r.mu.Unlock()
}

// noteTranscript remembers where r's transcript was written.
func (r *run) noteTranscript(path string) {
	r.mu.Lock()
	r.transcript = path
	r.mu.Unlock()
}

// rootFor returns the workspace folder holding path, or the primary one.
func (s *Server) rootFor(path string) string {
	roots := s.Guard().Roots()
	if path != "" {
		if gp, err := s.Guard().Resolve(path); err == nil && slices.Contains(roots, gp.Root) {
			return gp.Root
		}
	}
	if len(roots) > 0 {
		return roots[0]
	}
	return ""
}
