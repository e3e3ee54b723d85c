package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// cancelCommand handles catbuddy.cancel {runId}; without runId it cancels
// every run. A run at work ends as "cancelled"; one whose end-of-turn
// review waits has it withdrawn, its changes left pending
// (review_cancel.go). The answer comes after their end events (see
// awaitEnds).
func (rs *runs) cancelCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	var a struct {
		RunID string `json:"runId"`
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args[0], &a); err != nil {
			return nil, invalidParams("invalid argument: %v (want {runId})", err)
		}
	}
	type turn struct {
		r    *run
		done chan struct{}
	}
	rs.mu.Lock()
	var victims []turn
	for id, r := range rs.active {
		if a.RunID == "" || a.RunID == id {
			victims = append(victims, turn{r, r.done})
		}
	}
	rs.mu.Unlock()
	var ends []<-chan struct{}
	for _, v := range victims {
		if rs.cancelTurn(v.r, v.done, errCancelledByUser) {
			ends = append(ends, v.done)
		}
	}
	rs.awaitEnds(ctx, ends)
	return map[string]int{"cancelled": len(ends)}, nil
}

// commandInfo is one entry of catbuddy.listCommands.
type commandInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// commandList returns the built-in commands, then the custom ones, as
// the configuration for the primary folder has them.
func (rs *runs) commandList(ctx context.Context) []commandInfo {
	var out []commandInfo
	for _, c := range config.Commands(rs.fileConfig("")) {
		out = append(out, commandInfo{ID: c.ID, Title: c.Title})
	}
	return out
}

// fileConfig is the editor's settings over the configuration files of
// the folder holding path, for what needs no request to the client
// (command lists, code actions). A malformed file is logged and skipped.
func (rs *runs) fileConfig(path string) config.Config {
	editor := rs.s.AgentConfig()
	cfg, err := config.LoadConfig(rs.s.rootFor(path), editor)
	if err != nil {
		rs.s.log.Warn("configuration", "error", err)
		return editor
	}
	return cfg
}

// transcriptCommand handles catbuddy.transcript {runId?}: the transcript
// of that run (default: the last one). A run still going on gets its
// transcript so far written out first.
func (rs *runs) transcriptCommand(ctx context.Context, args []json.RawMessage) (any, error) {
	id, err := optionalRunID(args)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	if id == "" {
		id = rs.last
	}
	path, ended := rs.ended[id]
	r := rs.active[id]
	rs.mu.Unlock()
	switch {
	case id == "":
		return nil, fmt.Errorf("no run yet on this connection")
	case ended:
		return map[string]uri.URI{"uri": fileuri.FromPath(path)}, nil
	case r == nil:
		return nil, fmt.Errorf("no transcript for run %q (unknown run, or its transcript could not be written)", id)
	}
	path, err = r.Snapshot(rs.s.AgentConfig().APIKey)
	if err != nil {
		return nil, err
	}
	r.noteTranscript(path)
	return map[string]uri.URI{"uri": fileuri.FromPath(path)}, nil
}

// codeActions offers "Agent: Explain This" and every custom command for
// the requested range (the core offers "Agent: Fix This"). Each runs
// catbuddy.run with the range and the context's diagnostics.
func (rs *runs) codeActions(ctx context.Context, params *protocol.CodeActionParams) []protocol.CommandOrCodeAction {
	if !wantsKind(params.Context.Only, protocol.CodeActionKindRefactor) {
		return nil
	}
	path, _ := fileuri.ToPath(params.TextDocument.URI)
	var cmds []config.Command
	for _, c := range config.Commands(rs.fileConfig(path)) {
		// Fix This is the core's action; Ask needs a question the action
		// cannot carry (the editor clients ask for it themselves).
		if c.ID != config.CommandFix && c.ID != config.CommandAsk {
			cmds = append(cmds, c)
		}
	}
	var out []protocol.CommandOrCodeAction
	kind := protocol.CodeActionKindRefactor
	for _, c := range cmds {
		arg, err := protocol.Marshal(map[string]any{
			"command":     c.ID,
			"uri":         params.TextDocument.URI,
			"range":       params.Range,
			"diagnostics": nonNilDiagnostics(params.Context.Diagnostics),
		})
		if err != nil {
			rs.s.log.Error("marshal code action argument", "command", c.ID, "error", err)
			continue
		}
		out = append(out, &protocol.CodeAction{
			Title:   c.Title,
			Kind:    &kind,
			Command: protocol.Command{Title: c.Title, Command: cmdRun, Arguments: []protocol.LSPAny{arg}},
		})
	}
	return out
}

// wantsKind reports whether a code action of kind passes the client's
// "only" filter (a kind matches its parents: "refactor" admits "refactor").
func wantsKind(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, k := range only {
		if k == kind || k == "" {
			return true
		}
	}
	return false
}

func nonNilDiagnostics(d []protocol.Diagnostic) []protocol.Diagnostic {
	if d == nil {
		return []protocol.Diagnostic{}
	}
	return d
}

// optionalRunID decodes the {runId?} argument of the commands that act on
// one run and default to the last one; "" means the last run.
func optionalRunID(args []json.RawMessage) (string, error) {
	var a struct {
		RunID string `json:"runId"`
	}
	if len(args) > 0 && string(args[0]) != "null" {
		if err := json.Unmarshal(args[0], &a); err != nil {
			return "", invalidParams("invalid argument: %v (want {runId?})", err)
		}
	}
	return a.RunID, nil
}
