package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// maxResultText caps what one MCP call returns to the model.
const maxResultText = 100_000

// newTool wraps a remote tool as a registry Tool with its schema passed
// through unchanged; the model cannot tell it from a built-in.
func (m *Manager) newTool(name string, ref toolRef, def *sdk.Tool) tools.Tool {
	schema, err := json.Marshal(def.InputSchema)
	if err != nil || def.InputSchema == nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	desc := def.Description
	if desc == "" {
		desc = def.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %q of the MCP server %q.", ref.tool, ref.server)
	}
	t := tools.NewRawTool(name, desc, schema, func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		return m.call(ctx, ref, args)
	})
	t.ReadOnly = def.Annotations != nil && def.Annotations.ReadOnlyHint
	return t
}

// call runs one tool on its server. Failures the model can act on
// (server down, MCP error, timeout) are error results; the Go error is
// reserved for the caller's context ending.
func (m *Manager) call(ctx context.Context, ref toolRef, args json.RawMessage) (tools.Result, error) {
	m.mu.Lock()
	s := m.servers[ref.server]
	m.mu.Unlock()
	if s == nil {
		return tools.Errorf("MCP server %q is no longer configured", ref.server), nil
	}
	timeout := m.opts.CallTimeout
	if s.cfg.Timeout > 0 {
		timeout = time.Duration(s.cfg.Timeout) * time.Second
	}
	// One budget for the whole call: a call that arrives while its server
	// restarts waits for the restart within it.
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	session, unavailable := m.readySession(cctx, ref.server)
	if session == nil {
		if ctx.Err() != nil {
			return tools.Errorf("MCP tool %s/%s cancelled", ref.server, ref.tool), ctx.Err()
		}
		return tools.Errorf("%s", unavailable), nil
	}
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	res, err := session.CallTool(cctx, &sdk.CallToolParams{Name: ref.tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Errorf("MCP tool %s/%s cancelled", ref.server, ref.tool), ctx.Err()
		}
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return tools.Errorf("MCP tool %s/%s timed out after %s", ref.server, ref.tool, timeout), nil
		}
		return tools.Errorf("MCP tool %s/%s: %v", ref.server, ref.tool, err), nil
	}
	out := resultText(res)
	if len(out) > maxResultText {
		out = out[:maxResultText] + fmt.Sprintf("\n[truncated: %d more bytes]", len(out)-maxResultText)
	}
	return tools.Result{Output: out, IsError: res.IsError}, nil
}

// readySession returns the session of the named server once it is
// ready. A server that is starting or restarting is waited for until
// ctx ends; one that gave up, is disabled, stopped or gone is not. When
// there is no session, the text says why, as it stands.
func (m *Manager) readySession(ctx context.Context, name string) (*sdk.ClientSession, string) {
	var waitStart time.Time
	for {
		// The change channel is taken before the state is read, so a
		// change in between still wakes us.
		m.mu.Lock()
		s, changed := m.servers[name], m.waiters
		m.mu.Unlock()
		if s == nil {
			return nil, fmt.Sprintf("MCP server %q is no longer configured", name)
		}
		s.mu.Lock()
		session, state, lastErr := s.session, s.state, s.lastErr
		s.mu.Unlock()
		if session != nil && state == StateReady {
			return session, ""
		}
		why := ""
		if lastErr != "" {
			why = " (last error: " + lastErr + ")"
		}
		switch state {
		case StateStarting, StateRetrying, StateReady: // ready without a session: about to change
		case StateFailed:
			return nil, fmt.Sprintf("MCP server %q failed%s and is not retried until the configuration is reloaded", name, why)
		default:
			return nil, fmt.Sprintf("MCP server %q is %s%s", name, state, why)
		}
		if waitStart.IsZero() {
			waitStart = time.Now()
			if m.callWaits != nil {
				m.callWaits(name)
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Sprintf("MCP server %q is still %s after %s of waiting for it%s; try again later",
				name, state, time.Since(waitStart).Round(100*time.Millisecond), why)
		case <-changed:
		}
	}
}

// resultText renders the content of a call as text, with a note in
// place of what is not text.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image content omitted: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio content omitted: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s <%s>]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			switch {
			case c.Resource == nil:
			case c.Resource.Text != "":
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text))
			default:
				parts = append(parts, fmt.Sprintf("[binary resource omitted: %s, %s, %d bytes]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob)))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content omitted]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 {
		return "(no content)"
	}
	return strings.Join(parts, "\n")
}
