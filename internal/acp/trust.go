package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/config"
)

// Option ids of the trust question.
const (
	optTrust  = "trust"
	optNotNow = "not-now"
)

// askTrust asks once per session, before its first turn, whether to
// trust a project whose .catbuddy/ files ask for more than a project gets
// by default (MCP servers it would start, settings such as baseUrl), with
// the same text as the editors' question. Anything but Trust, a dismissed
// question included, is "Not now": none of it runs or applies.
func (s *acpSession) askTrust(ctx context.Context) {
	s.mu.Lock()
	asked := s.trusted
	s.trusted = true
	s.mu.Unlock()
	if asked || s.run.opts.TrustProject {
		return
	}
	msg, needed := s.run.trustQuestion()
	if !needed {
		return
	}
	title := "Trust the project " + s.root + "?"
	call := s.questionCall(ctx, title, sdk.ToolKindOther)
	kind := sdk.ToolKindOther
	res, err := s.a.client().RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(call), Title: &title, Kind: &kind, Status: sdk.Ptr(sdk.ToolCallStatusPending),
			Locations: []sdk.ToolCallLocation{{Path: s.root}},
			Content:   []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(msg))},
		},
		Options: []sdk.PermissionOption{
			{OptionId: optTrust, Name: "Trust", Kind: sdk.PermissionOptionKindAllowAlways},
			{OptionId: optNotNow, Name: "Not now", Kind: sdk.PermissionOptionKindRejectOnce},
		},
	})
	status := sdk.ToolCallStatusFailed
	defer func() { s.update(ctx, sdk.UpdateToolCall(sdk.ToolCallId(call), sdk.WithUpdateStatus(status))) }()
	if chosen(res, err) != optTrust {
		s.a.log.Info("acp: project not trusted", "root", s.root, "error", err)
		return
	}
	id, err := config.IdentifyProject(s.root)
	if err == nil {
		err = config.DefaultTrustStore().Trust(id)
	}
	if err != nil {
		s.a.log.Error("acp: cannot keep the trust decision", "root", s.root, "error", err)
		s.update(ctx, sdk.UpdateAgentThoughtText("Could not trust "+s.root+": "+err.Error()))
		return
	}
	status = sdk.ToolCallStatusCompleted
	s.a.log.Info("acp: project trusted", "root", s.root)
	s.run.trustChanged()
}
