package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// selectOption finds the select option id in opts.
func selectOption(t *testing.T, opts []sdk.SessionConfigOption, id string) *sdk.SessionConfigOptionSelect {
	t.Helper()
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return o.Select
		}
	}
	t.Fatalf("no config option %q in %+v", id, opts)
	return nil
}

func values(o *sdk.SessionConfigOptionSelect) []string {
	var out []string
	if o.Options.Ungrouped != nil {
		for _, v := range *o.Options.Ungrouped {
			out = append(out, string(v.Value))
		}
	}
	return out
}

func setValue(conn *sdk.ClientSideConnection, t *testing.T, id sdk.SessionId, option, value string) (sdk.SetSessionConfigOptionResponse, error) {
	return conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: sdk.SessionConfigId(option), Value: sdk.SessionConfigValueId(value)}})
}

// session/new offers the endpoint's models (GET /v1/models) and the
// mode; a model chosen with session/set_config_option is the one the next
// model request names, and config_option_update reports it.
func TestConfigOptionModel(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{
		Models: []string{"scripted", "scripted-large", "scripted-small"},
		Turns:  []agenttest.Turn{agenttest.TextTurn("From the configured model."), agenttest.TextTurn("From the large one.")},
	})
	root := env(t, srv, "openai", nil)
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	res, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.SessionId
	model := selectOption(t, res.ConfigOptions, "model")
	if string(model.CurrentValue) != "scripted" || strings.Join(values(model), ",") != "scripted,scripted-large,scripted-small" {
		t.Errorf("model option: current %q of %v", model.CurrentValue, values(model))
	}
	if model.Category == nil || *model.Category != sdk.SessionConfigOptionCategoryModel {
		t.Errorf("model option category %v", model.Category)
	}
	mode := selectOption(t, res.ConfigOptions, "mode")
	if string(mode.CurrentValue) != "auto" || strings.Join(values(mode), ",") != "auto,project" {
		t.Errorf("mode option: current %q of %v", mode.CurrentValue, values(mode))
	}

	if _, err := prompt(t, conn, id, "hello", ""); err != nil {
		t.Fatal(err)
	}
	set, err := setValue(conn, t, id, "model", "scripted-large")
	if err != nil {
		t.Fatalf("session/set_config_option: %v", err)
	}
	if got := selectOption(t, set.ConfigOptions, "model").CurrentValue; got != "scripted-large" {
		t.Errorf("the answer says the model is %q", got)
	}
	if _, err := prompt(t, conn, id, "again", ""); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[0].Model() != "scripted" || reqs[1].Model() != "scripted-large" {
		t.Errorf("models requested: %q then %q, want scripted then scripted-large", reqs[0].Model(), reqs[1].Model())
	}
	c.mu.Lock()
	var reported string
	for _, u := range c.updates {
		if co := u.Update.ConfigOptionUpdate; co != nil {
			reported = string(selectOption(t, co.ConfigOptions, "model").CurrentValue)
		}
	}
	c.mu.Unlock()
	if reported != "scripted-large" {
		t.Errorf("config_option_update reported model %q", reported)
	}
}

// The mode option changes what the agent may touch at once: in the home
// directory auto keeps to .catbuddy/workspace, project opens the folder.
func TestConfigOptionMode(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.TextTurn("Not allowed."),
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.TextTurn("Read it."),
	}})
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	t.Setenv("HOME", root)
	c := newTestClient(t)
	conn := connect(t, c, sdk.FileSystemCapabilities{})
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "read calc.go", ""); err != nil {
		t.Fatal(err)
	}
	if res := srv.Requests()[1].ToolResults(); len(res) != 1 || strings.Contains(res[0].Content, "return a - b") {
		t.Fatalf("auto mode in the home directory read the folder: %+v", res)
	}
	if _, err := setValue(conn, t, id, "mode", "project"); err != nil {
		t.Fatalf("set mode: %v", err)
	}
	if _, err := prompt(t, conn, id, "now read it", ""); err != nil {
		t.Fatal(err)
	}
	if res := srv.Requests()[3].ToolResults(); len(res) != 2 || !strings.Contains(res[1].Content, "return a - b") {
		t.Errorf("project mode did not read calc.go: %+v", res)
	}
}

// Bad config requests are -32602 and change nothing: an unknown value,
// an unknown option, an unknown session, a boolean for a select.
func TestConfigOptionBadInput(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("Still scripted.")}})
	root := env(t, srv, "openai", nil)
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	cases := []struct {
		name string
		req  sdk.SetSessionConfigOptionRequest
		want string
	}{
		{"unknown model", sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "model", Value: "gpt-nonexistent"}}, `unknown model \"gpt-nonexistent\"`},
		{"unknown mode", sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "mode", Value: "everything"}}, `unknown mode \"everything\"`},
		{"unknown review", sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "review", Value: "after"}}, `unknown review \"after\"`},
		{"unknown option", sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "temperature", Value: "1"}}, `unknown config option \"temperature\"`},
		{"unknown session", sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: "r00000000", ConfigId: "model", Value: "scripted"}}, "unknown session r00000000"},
		{"boolean for a select", sdk.SetSessionConfigOptionRequest{Boolean: &sdk.SetSessionConfigOptionBoolean{SessionId: id, ConfigId: "model", Value: true}}, "not a boolean"},
	}
	for _, tc := range cases {
		_, err := conn.SetSessionConfigOption(t.Context(), tc.req)
		if err == nil || !strings.Contains(err.Error(), "-32602") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want -32602 with %s", tc.name, err, tc.want)
		}
	}
	if _, err := prompt(t, conn, id, "hello", ""); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Model(); got != "scripted" {
		t.Errorf("model %q after refused changes, want scripted", got)
	}
}

// A value of a type no option takes, on the wire, is -32602 too.
func TestConfigOptionWrongTypeOnTheWire(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{})
	root := env(t, srv, "openai", nil)
	c := rawConnect(t)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	c.next()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quote(root) + `,"mcpServers":[]}}`)
	res, _ := c.next()["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", res)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"session/set_config_option","params":{"sessionId":"` + sid + `","configId":"model","value":5}}`)
	wantError(t, c.next(), float64(3), -32602, "")
	c.send(`{"jsonrpc":"2.0","id":4,"method":"session/set_config_option","params":{"sessionId":"` + sid + `","configId":"mode","type":"boolean","value":true}}`)
	wantError(t, c.next(), float64(4), -32602, "not a boolean")
	c.send(`{"jsonrpc":"2.0","id":5,"method":"session/set_config_option","params":{"sessionId":"` + sid + `","configId":"mode","value":"project"}}`)
	if m := c.next(); m["id"] != float64(5) || m["result"] == nil {
		t.Errorf("a good value after the bad ones: %v", m)
	}
}

// An Ollama endpoint whose GET /v1/models fails lists its models with
// its own GET /api/tags: the model option offers those.
func TestConfigOptionModelOllamaTags(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{
		Models: []string{"scripted", "qwen2.5-coder:7b", "llama3.2:latest"}, OllamaTags: true,
		Turns: []agenttest.Turn{agenttest.TextTurn("From the qwen one.")},
	})
	root := env(t, srv, "openai", nil)
	conn := connect(t, newTestClient(t), fullFS)
	res, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	model := selectOption(t, res.ConfigOptions, "model")
	if got := strings.Join(values(model), ","); got != "llama3.2:latest,qwen2.5-coder:7b,scripted" {
		t.Errorf("model option offers %s, want the /api/tags models", got)
	}
	if _, err := setValue(conn, t, res.SessionId, "model", "qwen2.5-coder:7b"); err != nil {
		t.Fatalf("set a model /api/tags listed: %v", err)
	}
	if _, err := prompt(t, conn, res.SessionId, "hello", ""); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Model(); got != "qwen2.5-coder:7b" {
		t.Errorf("model requested %q, want qwen2.5-coder:7b", got)
	}
}
