package acp

import (
	"context"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/config"
)

// announceCommands sends available_commands_update: the built-in fix
// and explain and the user's custom commands, as slash commands.
// session/new and session/load send it from a goroutine (the client
// learns the session id only from their answer, which the SDK writes when
// the handler returns, so that copy may arrive first and be dropped);
// the session's first prompt sends it again before anything else, so a
// client always has it by the first update of a turn.
func (s *acpSession) announceCommands(ctx context.Context) {
	cfg, err := s.run.config(ctx)
	if err != nil {
		s.a.log.Warn("acp: commands not announced", "session", s.id, "error", err)
		return
	}
	s.update(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: slashCommands(cfg)}})
}

// announceOnFirstTurn is announceCommands on the session's first prompt.
func (s *acpSession) announceOnFirstTurn(ctx context.Context) {
	s.mu.Lock()
	sent := s.cmdSent
	s.cmdSent = true
	s.mu.Unlock()
	if !sent {
		s.announceCommands(ctx)
	}
}

// slashCommands lists the commands a prompt may start with. ask is the
// default (a prompt without a command), so it is not listed.
func slashCommands(cfg config.Config) []sdk.AvailableCommand {
	var out []sdk.AvailableCommand
	for _, c := range config.Commands(cfg) {
		if c.ID == config.CommandAsk {
			continue
		}
		desc := strings.TrimPrefix(c.Title, "Agent: ")
		hint := "what to do, with the file attached"
		if c.ReadOnly {
			hint = "what to explain, with the file attached"
		}
		out = append(out, sdk.AvailableCommand{
			Name: c.ID, Description: desc,
			Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}},
		})
	}
	return out
}
