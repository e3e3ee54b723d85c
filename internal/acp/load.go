package acp

import (
	"context"
	"errors"
	"os"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// LoadSession implements sdk.AgentLoader: the stored run with that id
// under cwd, started in any front end (VS Code, Neovim, cb-ls run, an
// earlier ACP session), is replayed as session/update notifications and
// continues with the next prompt.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	id := string(p.SessionId)
	if err := session.CheckID(id); err != nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(errorData(err))
	}
	s, err := a.openSession(ctx, id, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	path, err := session.Find([]string{s.root}, id)
	switch {
	case errors.Is(err, session.ErrNotFound) && session.Reserved(s.root, id):
		// Created (session/new, perhaps by another cb-ls process) but
		// never prompted: there is nothing to replay, and its first
		// prompt starts the run under this id.
		a.log.Info("acp: session loaded before its first prompt", "session", id)
	case err != nil:
		s.close()
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(errorData(err))
	default:
		stored, err := session.Load(path)
		if err != nil {
			s.close()
			return sdk.LoadSessionResponse{}, sdk.NewInternalError(errorData(err))
		}
		s.run.resume(stored)
		s.replay(ctx, stored.Messages)
		a.log.Info("acp: session loaded", "session", id, "turns", stored.Turns, "messages", len(stored.Messages))
	}
	if err := a.add(s); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	go s.announceCommands(context.WithoutCancel(ctx))
	return sdk.LoadSessionResponse{ConfigOptions: s.configOptions(ctx)}, nil
}

// replay streams a stored conversation to the client: the user's
// messages, the agent's text, and each tool call with its result.
func (s *acpSession) replay(ctx context.Context, msgs []agent.Message) {
	plans := map[string]bool{} // update_plan calls: shown as their plan
	for _, m := range msgs {
		if m.Role == agent.RoleUser && m.Text != "" {
			s.update(ctx, sdk.UpdateUserMessageText(m.Text))
		}
		if m.Role == agent.RoleAssistant && m.Text != "" {
			s.update(ctx, sdk.UpdateAgentMessageText(m.Text))
		}
		for _, c := range m.ToolCalls {
			if c.Name == tools.PlanToolName {
				plans[c.ID] = true
				if u, ok := planUpdate(c.Args); ok {
					s.update(ctx, u)
				}
				continue
			}
			title, locs := describeCall(c.Name, c.Args, s.root)
			s.update(ctx, sdk.StartToolCall(sdk.ToolCallId(c.ID), title, sdk.WithStartKind(toolKind(c.Name)),
				sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartLocations(locs)))
		}
		for _, r := range m.ToolResults {
			if plans[r.CallID] {
				continue
			}
			status := sdk.ToolCallStatusCompleted
			if r.IsError {
				status = sdk.ToolCallStatusFailed
			}
			s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(r.CallID), sdk.WithUpdateStatus(status),
				sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(truncate(r.Output, maxShownOutput)))})))
		}
	}
}

// ListSessions implements sdk.Agent: the runs stored under cwd (or under
// the folders of this connection's sessions), most recent first.
func (a *Agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	if _, err := a.clientCaps(); err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	var roots []string
	if p.Cwd != nil {
		root, err := workspaceRoot(*p.Cwd)
		if err != nil {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(errorData(err))
		}
		roots = []string{root}
	} else {
		a.mu.Lock()
		seen := map[string]bool{}
		for _, s := range a.sessions {
			if !seen[s.root] {
				seen[s.root], roots = true, append(roots, s.root)
			}
		}
		a.mu.Unlock()
		if wd, err := os.Getwd(); err == nil && !seen[wd] {
			roots = append(roots, wd)
		}
	}
	list, err := session.List(roots)
	if err != nil && len(list) == 0 && !errors.Is(err, os.ErrNotExist) {
		a.log.Warn("acp: session/list", "error", err)
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, sum := range list {
		title := sum.TitleText()
		updated := sum.Updated.UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, sdk.SessionInfo{
			SessionId: sdk.SessionId(sum.RunID), Cwd: sum.Root, Title: &title, UpdatedAt: &updated,
		})
	}
	return out, nil
}
