package lsp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// A project's loosened tools settings apply to the next run right after
// catbuddy.trustProject and are gone right after untrustProject, with
// no restart: the project opens a local dev server to web_fetch, which
// the SSRF guard refuses until then.
func TestTrustedToolSettingsApplyToTheNextRun(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dev := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello from the dev server")
	}))
	t.Cleanup(dev.Close)
	host := strings.TrimPrefix(dev.URL, "http://")
	dir := writeTree(t, "-- calc.go --\n"+calcGo+"-- .catbuddy/config.json --\n"+
		`{"tools":{"webAllow":["`+host+`"]}}`+"\n")

	fetch := agenttest.CallTurn(agenttest.Call("web_fetch", map[string]any{"url": dev.URL + "/"}))
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		fetch, {Text: "untrusted"}, fetch, {Text: "trusted"}, fetch, {Text: "untrusted again"},
	}})
	a := &answerer{} // the question at open is dismissed
	ed := fake.New(t, fake.Options{Folders: []string{dir}, Answer: a.fn,
		InitializationOptions: map[string]any{"provider": "openai", "baseUrl": model.URL(), "model": "scripted", "apiKey": testKey}})
	ed.Await("the trust question", func() bool { return len(ed.Questions()) == 1 })
	if want := `tools.webAllow = ["` + host + `"]`; !strings.Contains(ed.Questions()[0].Message, want) {
		t.Errorf("the question lacks %q:\n%s", want, ed.Questions()[0].Message)
	}
	if strings.Contains(ed.Questions()[0].Message, "API key") {
		t.Errorf("the question speaks of the API key, which no setting here redirects:\n%s", ed.Questions()[0].Message)
	}
	f := &runFixture{dir: dir, calc: filepath.Join(dir, "calc.go"), model: model, ed: ed}
	f.uri = ed.OpenFile(f.calc)

	// fetched runs one ask and returns what web_fetch answered the model.
	fetched := func(n int) string {
		t.Helper()
		id := f.start(t, "catbuddy.run", map[string]any{"command": "ask", "input": "fetch the page", "uri": f.uri})
		if end := f.awaitEnd(t, id); end.Outcome != "done" {
			t.Fatalf("run %d ended %q: %s", n, end.Outcome, end.Error)
		}
		reqs := model.Requests()
		if len(reqs) != 2*n {
			t.Fatalf("after run %d the model got %d requests, want %d", n, len(reqs), 2*n)
		}
		res := reqs[2*n-1].ToolResults()
		if len(res) != 1 {
			t.Fatalf("run %d: %d tool results", n, len(res))
		}
		return res[0].Content
	}
	if out := fetched(1); strings.Contains(out, "hello from the dev server") || !strings.Contains(out, "URL refused") {
		t.Fatalf("an untrusted project's webAllow applied:\n%s", out)
	}

	a.set("Trust")
	var st trustStatus
	if err := ed.ExecuteCommand(lsp.CmdTrustProject, nil, &st); err != nil || !st.Trusted {
		t.Fatalf("trustProject = %+v %v", st, err)
	}
	if out := fetched(2); !strings.Contains(out, "hello from the dev server") {
		t.Fatalf("the trusted project's webAllow did not apply to the next run:\n%s", out)
	}

	if err := ed.ExecuteCommand(lsp.CmdUntrustProject, nil, &st); err != nil || st.Trusted {
		t.Fatalf("untrustProject = %+v %v", st, err)
	}
	if out := fetched(3); strings.Contains(out, "hello from the dev server") || !strings.Contains(out, "URL refused") {
		t.Fatalf("the webAllow of an untrusted project still applied:\n%s", out)
	}
}

// A project's "mode" applies right after trust and is withdrawn right
// after untrust: internal mode keeps the agent to .catbuddy/workspace.
func TestTrustedModeAppliesWithoutRestart(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := writeTree(t, "-- main.go --\npackage main\n-- .catbuddy/config.json --\n{\"mode\":\"internal\"}\n")
	a := &answerer{}
	ed := fake.New(t, fake.Options{Folders: []string{dir}, Answer: a.fn})
	ed.Await("the trust question", func() bool { return len(ed.Questions()) == 1 })
	if want := `mode = "internal"`; !strings.Contains(ed.Questions()[0].Message, want) {
		t.Errorf("the question lacks %q:\n%s", want, ed.Questions()[0].Message)
	}
	read := func() (string, bool) {
		var res struct {
			Output  string `json:"output"`
			IsError bool   `json:"is_error"`
		}
		if err := ed.ExecuteCommand(lsp.CmdRunTool, []any{map[string]any{"name": "read_file", "arguments": map[string]any{"path": filepath.Join(dir, "main.go")}}}, &res); err != nil {
			t.Fatal(err)
		}
		return res.Output, res.IsError
	}
	if out, isErr := read(); isErr {
		t.Fatalf("untrusted: the project's mode applied: %s", out)
	}
	a.set("Trust")
	var st trustStatus
	if err := ed.ExecuteCommand(lsp.CmdTrustProject, nil, &st); err != nil || !st.Trusted {
		t.Fatalf("trustProject = %+v %v", st, err)
	}
	if out, isErr := read(); !isErr || !strings.Contains(out, "outside the workspace") {
		t.Fatalf("trusted: internal mode did not apply: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".catbuddy", "workspace")); err != nil {
		t.Errorf("internal mode's workspace: %v", err)
	}
	if err := ed.ExecuteCommand(lsp.CmdUntrustProject, nil, &st); err != nil || st.Trusted {
		t.Fatalf("untrustProject = %+v %v", st, err)
	}
	if out, isErr := read(); isErr {
		t.Fatalf("untrusted again: the project's mode still applies: %s", out)
	}
}
