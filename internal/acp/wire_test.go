package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/acp"
	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// rawConn talks to the agent line by line, as a broken client would.
type rawConn struct {
	t     *testing.T
	w     io.Writer
	lines chan map[string]any
}

func rawConnect(t *testing.T) *rawConn {
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = acp.Serve(ctx, agentIn, agentOut, acp.Options{Version: "test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Run: acp.RunOptions{Mode: guard.ModeAuto}})
		agentOut.Close()
	}()
	c := &rawConn{t: t, w: toAgent, lines: make(chan map[string]any, 100)}
	go func() {
		sc := bufio.NewScanner(fromAgent)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the agent wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			c.lines <- m
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		toAgent.Close()
		cancel()
		<-done
	})
	return c
}

func (c *rawConn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next message that is not a notification.
func (c *rawConn) next() map[string]any {
	c.t.Helper()
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatal("the agent closed the connection")
			}
			if _, notification := m["method"]; notification {
				continue
			}
			return m
		case <-time.After(10 * time.Second):
			c.t.Fatal("no answer from the agent")
		}
	}
}

// wantError checks that m is an error response with id and code whose
// text contains want.
func wantError(t *testing.T, m map[string]any, id any, code float64, want string) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if e == nil {
		t.Fatalf("want error %v, got %v", code, m)
	}
	if m["id"] != id || e["code"] != code {
		t.Errorf("got id %v code %v, want id %v code %v (%v)", m["id"], e["code"], id, code, m)
	}
	if text := fmt.Sprint(e); !strings.Contains(text, want) {
		t.Errorf("error %s does not say %q", text, want)
	}
}

// Malformed and out-of-order messages each get a JSON-RPC error, and the
// agent goes on serving the next request.
func TestMalformedAndOutOfOrderMessages(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{})
	root := env(t, srv, "openai", nil)
	c := rawConnect(t)

	c.send(`this is not json`)
	wantError(t, c.next(), nil, -32700, "not JSON")
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]`)
	wantError(t, c.next(), nil, -32600, "batches")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quote(root) + `,"mcpServers":[]}}`)
	wantError(t, c.next(), float64(2), -32600, "initialize first")
	c.send(`{"id":3,"method":"initialize"}`)
	wantError(t, c.next(), nil, -32600, `"jsonrpc" must be "2.0"`)

	c.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if m := c.next(); m["id"] != float64(4) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"r0000beef","prompt":[{"type":"text","text":"hi"}]}}`)
	wantError(t, c.next(), float64(5), -32602, "session/new")
	c.send(`{"jsonrpc":"2.0","id":99,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
	wantError(t, c.next(), nil, -32600, "no request with id 99")
	c.send(`{"jsonrpc":"2.0","id":6,"method":"session/teleport","params":{}}`)
	wantError(t, c.next(), float64(6), -32601, "session/teleport")
	c.send(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`)
	wantError(t, c.next(), float64(7), -32602, "not an absolute path")

	c.send(`{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"cwd":` + quote(root) + `,"mcpServers":[]}}`)
	m := c.next()
	res, _ := m["result"].(map[string]any)
	if m["id"] != float64(8) || res == nil || res["sessionId"] == "" {
		t.Fatalf("session/new after the bad messages: %v", m)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
