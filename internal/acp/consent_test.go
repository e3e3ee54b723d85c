package acp_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// pick answers a question with its option of kind, as a user clicking
// it would (the client knows kinds, not cb-ls's option ids).
func pick(kind sdk.PermissionOptionKind) func(sdk.RequestPermissionRequest) string {
	return func(q sdk.RequestPermissionRequest) string {
		for _, o := range q.Options {
			if o.Kind == kind {
				return string(o.OptionId)
			}
		}
		return ""
	}
}

// "Allow all edits in this session" (allow_always) is asked once: the
// session's later edits, in the same prompt and the next, land without
// a question, each still through fs/write_text_file.
func TestAllowAlwaysCoversTheSessionsEdits(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "a.txt"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "ONE"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "new.txt", "content": "new\n"})),
		agenttest.TextTurn("Two changes."),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "ONE", "new_string": "One"})),
		agenttest.TextTurn("A third."),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "One", "new_string": "one"})),
		agenttest.TextTurn("Not allowed this time."),
	}})
	root := env(t, srv, "openai", map[string]string{"a.txt": "one\n"})
	c := newTestClient(t)
	c.answer = pick(sdk.PermissionOptionKindAllowAlways)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	for _, text := range []string{"change things", "and once more"} {
		if res, err := prompt(t, conn, id, text, ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("session/prompt %q: %v %v", text, res.StopReason, err)
		}
	}
	if len(c.perms) != 1 {
		t.Errorf("%d questions, want 1: the first edit's", len(c.perms))
	}
	a, n := filepath.Join(root, "a.txt"), filepath.Join(root, "new.txt")
	if c.writes[a] != "One\n" || c.writes[n] != "new\n" || c.nWrites != 3 {
		t.Errorf("%d writes, last %q", c.nWrites, c.writes)
	}
	// Every edit still shows its diff when it ends.
	diffs := 0
	for _, u := range c.updates {
		if tc := u.Update.ToolCallUpdate; tc != nil {
			for _, ct := range tc.Content {
				if ct.Diff != nil {
					diffs++
				}
			}
		}
	}
	if diffs != 3 {
		t.Errorf("%d diffs in tool_call_update, want 3", diffs)
	}
	// A new session asks again.
	c.answer = reject
	id2 := newSession(t, conn, root)
	if _, err := prompt(t, conn, id2, "undo the case", ""); err != nil {
		t.Fatalf("session/prompt in a new session: %v", err)
	}
	if len(c.perms) != 2 || c.writes[a] != "One\n" {
		t.Errorf("a new session: %d questions in all (want 2), a.txt %q", len(c.perms), c.writes[a])
	}
}

// _catbuddy/undoRun puts back what the session's run changed, as one
// question with the diff; a second undo is refused.
func TestUndoRunRestoresTheFiles(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "calc_test.go", "content": "package calc\n"})),
		agenttest.TextTurn("Fixed, with a test file."),
	}})
	root := env(t, srv, "anthropic", map[string]string{"calc.go": calcDisk})
	c := newTestClient(t)
	c.answer = allow
	conn := connect(t, c, sdk.FileSystemCapabilities{}) // the disk: what undo restores is visible there
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "/fix", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	calc, test := filepath.Join(root, "calc.go"), filepath.Join(root, "calc_test.go")
	if got, _ := os.ReadFile(calc); string(got) == calcDisk {
		t.Fatal("the fix did not land")
	}
	asked := len(c.perms)
	raw, err := conn.CallExtension(t.Context(), "_catbuddy/undoRun", map[string]string{"sessionId": string(id)})
	if err != nil {
		t.Fatalf("_catbuddy/undoRun: %v", err)
	}
	var res struct {
		Undone   bool     `json:"undone"`
		Restored []string `json:"restored"`
		Deleted  []string `json:"deleted"`
		Message  string   `json:"message"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Undone || strings.Join(res.Restored, ",") != "calc.go" || strings.Join(res.Deleted, ",") != "calc_test.go" {
		t.Errorf("undo answered %s", raw)
	}
	if got, _ := os.ReadFile(calc); string(got) != calcDisk {
		t.Errorf("calc.go after the undo:\n%s", got)
	}
	if _, err := os.Stat(test); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("calc_test.go is still there after the undo: %v", err)
	}
	if len(c.perms) != asked+1 {
		t.Fatalf("%d questions for the undo, want 1", len(c.perms)-asked)
	}
	q := c.perms[len(c.perms)-1]
	var files []string
	for _, ct := range q.ToolCall.Content {
		if ct.Diff != nil {
			files = append(files, filepath.Base(ct.Diff.Path))
		}
	}
	if strings.Join(files, ",") != "calc.go,calc_test.go" {
		t.Errorf("the undo question shows diffs of %v, want calc.go and calc_test.go", files)
	}
	_, err = conn.CallExtension(t.Context(), "_catbuddy/undoRun", map[string]string{"sessionId": string(id)})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Error()+jsonText(re.Data), "already undone") {
		t.Errorf("a second undo: %v, want an error saying it was already undone", err)
	}
	_, err = conn.CallExtension(t.Context(), "_catbuddy/undoRun", map[string]string{"sessionId": "r0000beef"})
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("undo of an unknown session: %v, want -32602", err)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Without a key for the configured provider, session/new fails with
// auth_required naming the variables and the config file; a local
// server needs none. A key the provider refuses ends the prompt with
// auth_required too.
func TestAuthRequired(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Status: 401}}})
	for _, tc := range []struct{ provider, baseURL, want string }{
		{"anthropic", "", "ANTHROPIC_API_KEY"},
		{"openai", "https://api.openai.com/v1", "OPENAI_API_KEY"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			root := env(t, srv, tc.provider, nil)
			t.Setenv("ANTHROPIC_API_KEY", "")
			t.Setenv("OPENAI_API_KEY", "")
			t.Setenv("CB_BASE_URL", tc.baseURL)
			conn := connect(t, newTestClient(t), fullFS)
			_, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
			var re *sdk.RequestError
			if !errors.As(err, &re) || re.Code != -32000 {
				t.Fatalf("session/new without a key: %v, want auth_required (-32000)", err)
			}
			for _, want := range []string{tc.want, "config.json"} {
				if !strings.Contains(jsonText(re.Data), want) {
					t.Errorf("the error %s does not name %s", jsonText(re.Data), want)
				}
			}
		})
	}
	t.Run("local server, refused key", func(t *testing.T) {
		root := env(t, srv, "openai", nil)
		t.Setenv("OPENAI_API_KEY", "")
		conn := connect(t, newTestClient(t), fullFS)
		id := newSession(t, conn, root) // a baseUrl of the user's needs no key
		_, err := prompt(t, conn, id, "hello", "")
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != -32000 {
			t.Errorf("a 401 from the model: %v, want auth_required (-32000)", err)
		}
	})
}

// Always allow "touch" for a command stores the same user rule as the
// editors' button (tools.exec.allow in the user's config): the next
// prompt's touch runs without a question.
func TestExecAlwaysAllowStoresTheRule(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "touch one.txt", "write": true, "reason": "a marker"})),
		agenttest.TextTurn("Made one."),
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "touch two.txt", "write": true, "reason": "another"})),
		agenttest.TextTurn("Made two."),
	}})
	root := env(t, srv, "openai", nil)
	c := newTestClient(t)
	c.answer = pick(sdk.PermissionOptionKindAllowAlways)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	for _, text := range []string{"make one", "make two"} {
		if _, err := prompt(t, conn, id, text, ""); err != nil {
			t.Fatalf("session/prompt %q: %v", text, err)
		}
	}
	if len(c.perms) != 1 {
		t.Errorf("%d questions, want 1", len(c.perms))
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s was not made: %v", f, err)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json"))
	if err != nil || !strings.Contains(string(cfg), `"touch"`) {
		t.Errorf("the user's config after Always allow: %s %v", cfg, err)
	}
	var thought string
	for _, u := range c.updates {
		if m := u.Update.AgentThoughtChunk; m != nil && m.Content.Text != nil {
			thought += m.Content.Text.Text
		}
	}
	if !strings.Contains(thought, `Commands starting with "touch" are now always allowed`) {
		t.Errorf("the client was not told the rule was stored: %q", thought)
	}
}
