package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/session"
)

// A run is a conversation. catbuddy.reply continues one that ended, from
// memory or, after a restart, from its session file; catbuddy.listRuns
// lists this connection's runs and the stored ones.

// replyArgs is arguments[0] of catbuddy.reply.
type replyArgs struct {
	RunID string `json:"runId"`
	Input string `json:"input"`
}

// replyCommand handles catbuddy.reply {runId, input}: the input becomes
// the next user message of the run's conversation, and the run goes on
// under the same id with the same FileStates, tools and review. It
// answers {runId, turn} at once, like catbuddy.run.
func (rs *runs) replyCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	var a replyArgs
	if len(args) == 0 {
		return nil, invalidParams("expected one argument {runId, input}")
	}
	if err := json.Unmarshal(args[0], &a); err != nil {
		return nil, invalidParams("invalid argument: %v (want {runId, input})", err)
	}
	a.Input = strings.TrimSpace(a.Input)
	switch {
	case a.RunID == "":
		return nil, invalidParams("missing runId: the run to continue (catbuddy.listRuns lists them)")
	case a.Input == "":
		return nil, invalidParams("missing input: the message to send to run %s", a.RunID)
	}
	if err := session.CheckID(a.RunID); err != nil {
		return nil, invalidParams("%v", err)
	}
	r, err := rs.runFor(ctx, a.RunID)
	if err != nil {
		return nil, err
	}
	cfg, err := config.LoadConfig(rs.s.rootFor(r.target.path), rs.config(ctx, r.target.uri))
	if err != nil {
		return nil, err
	}
	cmd, ok := config.FindCommand(cfg, r.Command.ID)
	if !ok {
		return nil, fmt.Errorf("run %s used the command %q, which is no longer configured; start a new run", r.ID, r.Command.ID)
	}
	prov, err := agent.NewProvider(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd.Title, err)
	}
	var turn int
	runCtx, err := rs.claim(ctx, r, exclusive(cfg), func() {
		r.Command = cmd
		turn = r.Begin()
	})
	if err != nil {
		return nil, err
	}
	go rs.execute(runCtx, r, agent.Task{}, cfg, prov, runArgs{Command: cmd.ID, Input: a.Input})
	return map[string]any{"runId": r.ID, "turn": turn}, nil
}

// runFor returns the ended run id, from this connection's memory or from
// its session file. A run still going is refused.
func (rs *runs) runFor(ctx context.Context, id string) (*run, error) {
	rs.mu.Lock()
	if _, going := rs.active[id]; going {
		rs.mu.Unlock()
		return nil, fmt.Errorf("%w: run %s is still going; wait for it to end or %s", errRunBusy, id, cancelHint(id))
	}
	r := rs.idle[id]
	rs.mu.Unlock()
	if r != nil {
		return r, nil
	}
	return rs.load(ctx, id)
}

// load rebuilds an ended run from its session file. Its FileStates start
// empty: the files may have changed since, so the model reads them again.
func (rs *runs) load(ctx context.Context, id string) (*run, error) {
	path, err := session.Find(rs.s.Guard().Roots(), id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, fmt.Errorf("unknown run %q: not on this connection and not among the sessions kept in %s (catbuddy.listRuns lists the runs)", id, session.Where)
	}
	if err != nil {
		return nil, err
	}
	sess, err := session.Load(path)
	if err != nil {
		return nil, err
	}
	t := target{path: sess.Path, rel: sess.File, version: -1}
	if sess.Path != "" {
		t.uri = fileuri.FromPath(sess.Path)
		if now, err := rs.s.resolveTarget(ctx, t.uri); err == nil {
			t = now
		}
	}
	r := &run{Run: app.ResumeRun(sess), target: t, started: sess.Started, states: rs.s.NewFileStates(), sum: sess.Summary}
	return r, nil
}

// remember keeps what a turn that ended left: the totals for
// catbuddy.listRuns and where its transcript went (app.Run keeps the
// conversation for the next reply and stored it for after a restart). A
// session or transcript that could not be written is logged: the run
// itself succeeded, and it can still be continued while the server runs.
func (rs *runs) remember(r *run, res app.Result) {
	rs.mu.Lock()
	r.sum.AddTurn(res.Record)
	rs.mu.Unlock()
	if res.TranscriptPath != "" {
		r.noteTranscript(res.TranscriptPath)
	}
	if res.StoreErr != nil && r.Log != nil {
		rs.s.log.Error("run conversation not stored; it cannot be continued after a restart", "run", r.ID, "error", res.StoreErr)
	}
	if res.TranscriptErr != nil {
		rs.s.log.Error("run transcript not written", "run", r.ID, "error", res.TranscriptErr)
	}
}

// runInfo is one entry of catbuddy.listRuns; see docs/PROTOCOL.md.
type runInfo struct {
	RunID   string      `json:"runId"`
	Command string      `json:"command"`
	Title   string      `json:"title"`
	File    string      `json:"file,omitempty"`
	URI     uri.URI     `json:"uri,omitempty"`
	Started time.Time   `json:"started"`
	Updated time.Time   `json:"updated"`
	Outcome string      `json:"outcome"` // running, done, cancelled, error
	Turns   int         `json:"turns"`
	Files   []string    `json:"files"`
	Tokens  agent.Usage `json:"tokens"`
	// TranscriptURI is the markdown of the turns so far, once written.
	TranscriptURI uri.URI `json:"transcriptUri,omitempty"`
	// Pending counts the run's hunks (a group as one) still pending the
	// user's keep or discard.
	Pending int `json:"pending"`
}

func newRunInfo(s session.Summary) runInfo {
	info := runInfo{RunID: s.RunID, Command: s.Command, Title: s.TitleText(), File: s.File, Started: s.Started,
		Updated: s.Updated, Outcome: s.Outcome, Turns: s.Turns, Files: s.Files, Tokens: s.Usage}
	if s.Path != "" {
		info.URI = fileuri.FromPath(s.Path)
	}
	if info.Files == nil {
		info.Files = []string{}
	}
	if info.Updated.IsZero() {
		info.Updated = s.Started
	}
	if s.Log != "" {
		if md := session.TranscriptPath(s.Log); fileExists(md) {
			info.TranscriptURI = fileuri.FromPath(md)
		}
	}
	return info
}

// listRunsCommand handles catbuddy.listRuns: this connection's runs and
// those stored in the workspace folders' sessions, most recently active
// first. A damaged session file is logged and left out.
func (rs *runs) listRunsCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	stored, err := session.List(rs.s.Guard().Roots())
	if err != nil {
		rs.s.log.Warn("some stored runs could not be read", "error", err)
	}
	seen := map[string]bool{}
	var out []runInfo
	rs.mu.Lock()
	for _, r := range rs.active {
		info := newRunInfo(r.sum)
		info.Outcome, info.Updated = "running", time.Now()
		out = append(out, info)
		seen[r.ID] = true
	}
	for _, r := range rs.idle {
		out = append(out, newRunInfo(r.sum))
		seen[r.ID] = true
	}
	rs.mu.Unlock()
	for _, s := range stored {
		if !seen[s.RunID] {
			out = append(out, newRunInfo(s))
		}
	}
	if st := rs.s.pendingStore(); st != nil {
		for i := range out {
			if set, ok := st.Get(out[i].RunID); ok {
				out[i].Pending = set.Count()
			}
		}
	}
	slices.SortStableFunc(out, func(a, b runInfo) int { return b.Updated.Compare(a.Updated) })
	if out == nil {
		out = []runInfo{}
	}
	return out, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
