package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/agent"
	"github.com/catbuddy/cb-ls/filestate"
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
	cmdFix          = "catbuddy.fix"
	cmdCancel       = "catbuddy.cancel"
	cmdListCommands = "catbuddy.listCommands"
	cmdTranscript   = "catbuddy.transcript"
)

// runs tracks the connection's agent runs: at most one per document.
type runs struct {
	s *Server

	mu     sync.Mutex
	seq    int
	active map[string]*run // by id
	byDoc  map[string]*run // by document path ("" for free questions is never locked)
	ended  map[string]string
	last   string // id of the most recent run, for catbuddy.transcript without runId
}

// run is one agent run.
type run struct {
	id      string
	command agent.Command
	target  target
	started time.Time
	cancel  context.CancelCauseFunc
	done    chan struct{}

	mu         sync.Mutex // guards tr and transcript
	tr         *transcript
	transcript string // path once written
}

// errCancelledByUser is the cause of a run cancelled from the editor.
var errCancelledByUser = errors.New("cancelled by the user")

// registerRunCommands installs catbuddy.run and its companions, and the
// code actions for explain and custom commands. Called from newServer.
func (s *Server) registerRunCommands() {
	rs := &runs{s: s, active: map[string]*run{}, byDoc: map[string]*run{}, ended: map[string]string{}}
	s.registerCommand(cmdRun, func(ctx context.Context, args []json.RawMessage) (any, error) {
		return rs.start(ctx, rawArgs(args), "")
	})
	s.registerCommand(cmdFix, func(ctx context.Context, args []json.RawMessage) (any, error) {
		return rs.start(ctx, rawArgs(args), "fix")
	})
	s.registerCommand(cmdCancel, rs.cancelCommand)
	s.registerCommand(cmdListCommands, func(ctx context.Context, args []json.RawMessage) (any, error) {
		return rs.commandList(ctx), nil
	})
	s.registerCommand(cmdTranscript, rs.transcriptCommand)
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
	cfg, err := agent.LoadConfig(s.rootFor(t.path), rs.config(ctx, a.URI))
	if err != nil {
		return nil, err
	}
	cmd, ok := agent.FindCommand(cfg, a.Command)
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

	r := &run{command: cmd, target: t, started: time.Now(), done: make(chan struct{})}
	rs.mu.Lock()
	if t.path != "" {
		if other, busy := rs.byDoc[t.path]; busy {
			rs.mu.Unlock()
			return nil, fmt.Errorf("%w on %s: run %s (%s) started %s ago; cancel it with catbuddy.cancel {\"runId\": %q} or wait for it to end",
				errRunBusy, t.rel, other.id, other.command.ID, time.Since(other.started).Round(time.Second), other.id)
		}
	}
	rs.seq++
	r.id = fmt.Sprintf("r%d", rs.seq)
	rs.active[r.id] = r
	if t.path != "" {
		rs.byDoc[t.path] = r
	}
	rs.last = r.id
	rs.mu.Unlock()

	// The request's context ends when this handler returns; the run lives
	// until it finishes, is cancelled, or the connection goes away.
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	r.cancel = cancel
	go rs.watchConnection(runCtx, r)
	go rs.execute(runCtx, r, task, cfg, prov, a)
	return map[string]string{"runId": r.id}, nil
}

// watchConnection cancels r when the connection ends.
func (rs *runs) watchConnection(ctx context.Context, r *run) {
	select {
	case <-r.done:
	case <-rs.s.exitCh:
		r.cancel(errors.New("the editor disconnected"))
	case <-rs.s.conn.Done():
		r.cancel(errors.New("the editor disconnected"))
	}
}

// execute runs the agent and reports its end. It owns r until it returns.
func (rs *runs) execute(ctx context.Context, r *run, task agent.Task, cfg agent.Config, prov agent.Provider, a runArgs) {
	s := rs.s
	defer func() {
		rs.release(r) // already done on the normal path; this covers a panic
		r.cancel(nil)
		close(r.done)
	}()
	header := runHeader{RunID: r.id, Command: r.command.ID, Title: r.command.Title, File: r.target.rel,
		StartLine: task.StartLine, EndLine: task.EndLine, Model: cfg.Model, Input: a.Input, Started: r.started}
	r.mu.Lock()
	r.tr = newTranscript(header)
	r.mu.Unlock()

	rep := newRunReporter(s, r)
	rep.begin(ctx, a)

	states := s.NewFileStates()
	// Edits made by the run report on its progress too (see onEdit).
	runCtx := withProgress(filestate.NewContext(ctx, states), rep.progress)
	runner := &agent.Runner{Registry: s.Registry(), Config: cfg, WorkRoot: s.Guard().WorkRoot, Provider: prov}
	out, err := runner.Run(runCtx, task, func(ev agent.Event) {
		r.mu.Lock()
		r.tr.add(ev)
		r.mu.Unlock()
		rep.event(ctx, ev)
	})

	status := "done"
	switch {
	case err != nil && ctx.Err() != nil:
		status = "cancelled"
		err = context.Cause(ctx)
	case err != nil:
		status = "error"
	}
	r.mu.Lock()
	text := r.tr.finish(status, out, err)
	r.mu.Unlock()
	path, terr := rs.writeTranscript(r, text, cfg)
	if terr != nil {
		s.log.Error("run transcript not written", "run", r.id, "error", terr)
	}
	// The document is free before anyone hears that the run ended, so a
	// client may start the next run as soon as it sees the end.
	rs.release(r)
	rep.end(ctx, status, out, err, path)
}

// release frees r's document and records where its transcript went. It
// may be called more than once.
func (rs *runs) release(r *run) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.active[r.id] != r {
		return
	}
	delete(rs.active, r.id)
	if rs.byDoc[r.target.path] == r {
		delete(rs.byDoc, r.target.path)
	}
	r.mu.Lock()
	if r.transcript != "" {
		rs.ended[r.id] = r.transcript
	}
	r.mu.Unlock()
}

// writeTranscript writes r's transcript (final or, while it runs, as far
// as it got) and remembers its path.
func (rs *runs) writeTranscript(r *run, text string, cfg agent.Config) (string, error) {
	root := rs.s.rootFor(r.target.path)
	if root == "" {
		return "", errors.New("no workspace folder to hold .catbuddy/sessions")
	}
	path, err := writeTranscript(root, transcriptName(r.started, r.id, r.command.ID), text, cfg.APIKey)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	r.transcript = path
	r.mu.Unlock()
	return path, nil
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
