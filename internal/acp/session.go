package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/session"
)

// acpSession is one ACP session: one cb-ls run (its id is the run id, so
// session/list and session/load see the runs of every front end) whose
// turns are the client's prompts.
type acpSession struct {
	a    *Agent
	id   string
	root string // the client's cwd: the workspace folder
	ws   *workspace
	run  *runEnv // guard, registry, tools (assemble.go)

	// Kept across turns: what the model read and wrote (for dedup and
	// "read first"), and what the run changed (for _catbuddy/undoRun).
	states *filestate.FileStates
	ledger *filestate.Ledger

	mu      sync.Mutex
	busy    bool
	cancel  context.CancelFunc // the running turn's
	done    chan struct{}      // closed when the running turn ends
	call    string             // the tool call whose change or command is being asked about
	diffs   map[string][]sdk.ToolCallContent
	trusted bool           // the trust question was asked (or not needed)
	cmdSent bool           // the first prompt sent available_commands_update
	choices sessionChoices // config options set by the client
	undone  bool
}

// openSession builds a session for cwd; conv, log and turns are set by
// session/load.
func (a *Agent) openSession(ctx context.Context, id, cwd string, servers []sdk.McpServer) (*acpSession, error) {
	caps, err := a.clientCaps()
	if err != nil {
		return nil, err
	}
	root, err := workspaceRoot(cwd)
	if err != nil {
		return nil, sdk.NewInvalidParams(errorData(err))
	}
	s := &acpSession{a: a, id: id, root: root, states: filestate.New(), ledger: filestate.NewLedger(), diffs: map[string][]sdk.ToolCallContent{},
		choices: sessionChoices{mode: a.opts.Run.Mode}}
	s.ws = &workspace{s: s, caps: caps.Fs, seen: map[string]bool{}}
	s.states.SetSeenFunc(s.ws.wasSeen)
	if s.run, err = assemble(ctx, s, servers); err != nil {
		return nil, err
	}
	return s, nil
}

// workspaceRoot checks the client's cwd: absolute, an existing
// directory; its real path is the workspace folder.
func workspaceRoot(cwd string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", fmt.Errorf("cwd %s: %w", cwd, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cwd %s is not a directory", cwd)
	}
	return real, nil
}

// NewSession implements sdk.Agent.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.openSession(ctx, session.NewRunID(), p.Cwd, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := s.checkKey(); err != nil {
		s.close()
		return sdk.NewSessionResponse{}, err
	}
	if err := a.add(s); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	// Noted on disk, so that session/load finds it before its first
	// prompt too (a command-line client loads it from another process).
	if err := session.Reserve(s.root, s.id); err != nil {
		a.log.Warn("acp: session not reserved: session/load will not find it before its first prompt", "session", s.id, "error", err)
	}
	a.log.Info("acp: new session", "session", s.id, "root", s.root)
	go s.announceCommands(context.WithoutCancel(ctx))
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id), ConfigOptions: s.configOptions(ctx)}, nil
}

// errClosing answers a session/new or session/load that ends after the
// client went away.
var errClosing = errors.New("cb-ls acp is shutting down")

// add makes s live, replacing (and closing) an older copy of the same
// session. Once the agent has closed its sessions, s is closed instead:
// its MCP servers must not outlive the connection.
func (a *Agent) add(s *acpSession) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		s.close()
		return sdk.NewInternalError(errorData(errClosing))
	}
	old := a.sessions[s.id]
	a.sessions[s.id] = s
	a.mu.Unlock()
	if old != nil && old != s {
		old.close()
	}
	return nil
}

// errBusy is the answer to a second prompt while one runs.
var errBusy = errors.New("a prompt is already running in this session: wait for it to end or send session/cancel")

// beginTurn claims the session for one prompt.
func (s *acpSession) beginTurn(ctx context.Context) (context.Context, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return nil, nil, sdk.NewInvalidRequest(errorData(errBusy))
	}
	turnCtx, cancel := context.WithCancel(ctx)
	s.busy, s.cancel, s.done = true, cancel, make(chan struct{})
	done := s.done
	return turnCtx, func() {
		cancel()
		s.mu.Lock()
		s.busy, s.cancel, s.call = false, nil, ""
		s.mu.Unlock()
		close(done)
	}, nil
}

// cancelTurn stops the running prompt, if any.
func (s *acpSession) cancelTurn() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// close ends the session: its turn, then its MCP servers.
func (s *acpSession) close() {
	s.cancelTurn()
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done != nil {
		<-done
	}
	s.run.close()
}

// setCall notes the tool call whose question comes next: writes and
// commands run one at a time, so the last one started is it.
func (s *acpSession) setCall(id string) {
	s.mu.Lock()
	s.call = id
	s.mu.Unlock()
}

// endCall forgets the tool call that ended, so that a later question
// outside any tool call (an undo, the end of the turn) is not shown as
// part of it.
func (s *acpSession) endCall(id string) {
	s.mu.Lock()
	if s.call == id {
		s.call = ""
	}
	s.mu.Unlock()
}

func (s *acpSession) currentCall() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.call
}

// keepDiffs remembers the diff of a call's change, shown again when the
// call ends.
func (s *acpSession) keepDiffs(call string, diffs []sdk.ToolCallContent) {
	if call == "" {
		return
	}
	s.mu.Lock()
	s.diffs[call] = append(s.diffs[call], diffs...)
	s.mu.Unlock()
}

func (s *acpSession) takeDiffs(call string) []sdk.ToolCallContent {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.diffs[call]
	delete(s.diffs, call)
	return d
}

// update sends one session/update; a client that went away is not an
// error the run can act on.
func (s *acpSession) update(ctx context.Context, u sdk.SessionUpdate) {
	if err := s.a.client().SessionUpdate(context.WithoutCancel(ctx), sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u}); err != nil {
		s.a.log.Debug("acp: session/update not sent", "session", s.id, "error", err)
	}
}
