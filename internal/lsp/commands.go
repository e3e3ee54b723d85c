package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// Command names served by this file. The run commands (catbuddy.run,
// catbuddy.fix, …) live in run.go.
const (
	CmdRunTool   = "catbuddy.runTool"
	CmdListTools = "catbuddy.listTools"
	CmdFix       = "catbuddy.fix"
)

func (s *Server) registerCoreCommands() {
	s.registerCommand(CmdRunTool, s.runTool)
	s.registerCommand(CmdListTools, s.listTools)
	s.addCodeActions(s.fixThisAction)
}

// executeCommand dispatches workspace/executeCommand through the command
// table. It runs off the read loop (async in methodTable), except for
// params that name no command (unknownCommand).
func (s *Server) executeCommand(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	p, err := decodeExecuteCommand(raw)
	if err != nil {
		return nil, err
	}
	h, ok := s.commands[p.Command]
	if !ok {
		return nil, invalidParams("unknown command %q", p.Command)
	}
	res, err := h(ctx, p.Arguments)
	if errors.Is(err, errRunBusy) {
		// Expected, and said to the user (who may cancel the other run):
		// not an error of the server's. RequestFailed lets clients show
		// it as the warning it is.
		s.log.Info("run refused: the document or run is busy", "command", p.Command, "reason", err)
		return nil, jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	return res, err
}

// unknownCommand reports whether executeCommand params name no command
// of the table (or do not decode): their error is answered on the read
// loop. Only the name is decoded; the arguments are scanned, not copied.
func (s *Server) unknownCommand(raw jsonrpc2.RawMessage) bool {
	name, _, ok := fastExecuteCommand(raw)
	if !ok {
		var p struct {
			Command string `json:"command"`
		}
		if len(raw) == 0 || json.Unmarshal(raw, &p) != nil {
			return true
		}
		name = p.Command
	}
	_, ok = s.commands[name]
	return !ok
}

// executeCommandParams is what executeCommand reads of its params.
type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// decodeExecuteCommand decodes executeCommand params, the usual shape in
// place (fastExecuteCommand) and anything else with encoding/json.
func decodeExecuteCommand(raw []byte) (executeCommandParams, error) {
	if name, args, ok := fastExecuteCommand(raw); ok {
		return executeCommandParams{Command: name, Arguments: args}, nil
	}
	var p executeCommandParams
	if len(raw) == 0 {
		return p, invalidParams("missing params")
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, invalidParams("invalid executeCommand params: %v", err)
	}
	return p, nil
}

// codeRequestFailed is LSP's RequestFailed: a valid request refused in
// the server's present state (a busy document).
const codeRequestFailed = jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed)

// runToolArgs is catbuddy.runTool's one argument.
type runToolArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// runToolResult is catbuddy.runTool's answer.
type runToolResult struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error"`
}

// runTool runs one tool through the registry with the connection's
// FileStates: the editor's own session.
func (s *Server) runTool(ctx context.Context, args []json.RawMessage) (any, error) {
	var a runToolArgs
	if err := oneArg(args, &a); err != nil {
		return nil, err
	}
	if a.Name == "" {
		return nil, invalidParams("%s: name is required", CmdRunTool)
	}
	ctx = s.withToolOptions(filestate.NewContext(ctx, s.fileStates))
	res, err := s.registry.Execute(ctx, a.Name, a.Arguments)
	if err != nil {
		return nil, err // the request was cancelled
	}
	return runToolResult{Output: res.Output, IsError: res.IsError}, nil
}

// toolInfo is one entry of catbuddy.listTools.
type toolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func (s *Server) listTools(ctx context.Context, args []json.RawMessage) (any, error) {
	list := s.registry.List()
	out := make([]toolInfo, 0, len(list))
	for _, t := range list {
		out = append(out, toolInfo{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out, nil
}

// oneArg decodes the single object argument of a command.
func oneArg(args []json.RawMessage, v any) error {
	if len(args) != 1 {
		return invalidParams("expected one argument, got %d", len(args))
	}
	raw := bytes.TrimSpace(args[0])
	if len(raw) == 0 || raw[0] != '{' {
		return invalidParams("the argument must be a JSON object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("invalid argument: %v", err)
	}
	return nil
}

// codeAction collects the actions of every provider.
func (s *Server) codeAction(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	out := []protocol.CommandOrCodeAction{}
	for _, provide := range s.codeActions {
		out = append(out, provide(ctx, &p)...)
	}
	return out, nil
}

// fixThisAction offers "Agent: Fix This": a quickfix when the context
// carries diagnostics, a refactor otherwise.
func (s *Server) fixThisAction(ctx context.Context, p *protocol.CodeActionParams) []protocol.CommandOrCodeAction {
	kind := protocol.CodeActionKindRefactor
	diags := p.Context.Diagnostics
	if len(diags) > 0 {
		kind = protocol.CodeActionKindQuickFix
	}
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	arg, err := protocol.Marshal(&struct {
		URI         string                `json:"uri"`
		Range       protocol.Range        `json:"range"`
		Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	}{string(p.TextDocument.URI), p.Range, diags})
	if err != nil {
		s.log.Error("marshal fix argument", "error", err)
		return nil
	}
	title := "Agent: Fix This"
	return []protocol.CommandOrCodeAction{&protocol.CodeAction{
		Title:       title,
		Kind:        &kind,
		Diagnostics: p.Context.Diagnostics,
		Command:     protocol.Command{Title: title, Command: CmdFix, Arguments: []protocol.LSPAny{arg}},
	}}
}
