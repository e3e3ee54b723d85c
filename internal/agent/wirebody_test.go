package agent

import (
	"bytes"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

func TestUnescapeHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":"x"}`, `{"a":"x"}`},
		{`"a \u0026\u0026 b \u003c-c -\u003e"`, `"a && b <-c ->"`},
		// An escaped backslash before u0026 is text, not an escape.
		{`"\\u0026"`, `"\\u0026"`},
		{`"\\\u0026"`, `"\\&"`},
		{`"\u00e9 \u2028 \"\u003c\""`, `"\u00e9 \u2028 \"<\""`},
		{`"\u00`, `"\u00`},
	} {
		if got := string(unescapeHTML([]byte(c.in))); got != c.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestRequestsCarryPlainHTMLCharacters: a tool result with && and <-
// reaches the model as those characters, not as \u0026 and \u003c, in
// both wire formats, and means the same text; Anthropic's is a string
// without is_error.
func TestRequestsCarryPlainHTMLCharacters(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		tt := newTestTools(t)
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
			{ToolCalls: []agenttest.ToolCall{agenttest.Call("echo", map[string]string{"text": `a && <-ch > "b" \u0026`})}},
			agenttest.TextTurn("done"),
		}})
		r := &Runner{Registry: tt.reg, Config: m.config(srv), WorkRoot: func() string { return "/w" }}
		if _, err := r.Run(t.Context(), Task{Command: "ask", Input: "x"}, nil); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		// (OpenAI's arguments are the model's own JSON text, as it sent
		// them: only the result is checked.)
		if raw := reqs[1].Raw; !bytes.Contains(raw, []byte(`echo: a && <-ch > `)) {
			t.Errorf("the request escapes HTML characters:\n%s", raw)
		}
		// Anthropic's shortest form: the content as a string, no
		// is_error when false.
		if raw := reqs[1].Raw; m.provider == "anthropic" && (!bytes.Contains(raw, []byte(`"content":"echo: a && <-ch`)) || bytes.Contains(raw, []byte(`"is_error":false`))) {
			t.Errorf("the tool result is not in its shortest form:\n%s", raw)
		}
		if res := reqs[1].ToolResults(); len(res) != 1 || res[0].Content != `echo: a && <-ch > "b" \u0026` {
			t.Errorf("results as the server decoded them: %+v", res)
		}
	})
}
