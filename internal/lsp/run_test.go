package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/session"
)

// These tests drive "Agent: Fix This" end to end: the fake editor talks to
// the real server over a pipe, the real agent loop talks to a scripted
// model server over loopback HTTP, and the edit goes through the reviewed
// workspace/applyEdit flow.

const calcGo = `package calc

// Add returns a plus b.
func Add(a, b int) int {
	return a - b
}
`

const testKey = "sk-test-run-key-0123456789"

// runFixture is a workspace with calc.go open in the fake editor and a
// server configured to use the scripted model.
type runFixture struct {
	dir   string
	calc  string
	uri   uri.URI
	model *agenttest.Server
	ed    *fake.Editor
}

// newRunFixture reviews each change before it lands (review "before"):
// the editor's review of every edit, as it has always been. The tests
// of pending changes use newRunFixtureWith. more adjusts the fake
// editor's options further.
func newRunFixture(t *testing.T, script agenttest.Script, caps func(*protocol.ClientCapabilities), more ...func(*fake.Options)) *runFixture {
	t.Helper()
	return newRunFixtureWith(t, script, func(o *fake.Options, init map[string]any) {
		o.Capabilities = caps
		init["review"] = "before"
		for _, f := range more {
			f(o)
		}
	})
}

// newRunFixtureWith is newRunFixture with adjust's say over the editor
// and its initializationOptions.
func newRunFixtureWith(t *testing.T, script agenttest.Script, adjust func(o *fake.Options, init map[string]any)) *runFixture {
	t.Helper()
	dir, calc := calcProject(t)
	model := agenttest.NewServer(t, script)
	init := map[string]any{
		"provider": "openai", "baseUrl": model.URL(), "model": "scripted", "apiKey": testKey, "maxSteps": 5,
	}
	opts := fake.Options{Folders: []string{dir}, InitializationOptions: init}
	if adjust != nil {
		adjust(&opts, init)
	}
	ed := fake.New(t, opts)
	u := ed.OpenFile(calc)
	return &runFixture{dir: dir, calc: calc, uri: u, model: model, ed: ed}
}

// calcProject is a new folder (its real path) holding calc.go.
func calcProject(t *testing.T) (dir, calc string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	calc = filepath.Join(dir, "calc.go")
	if err := os.WriteFile(calc, []byte(calcGo), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, calc
}

// fixArgs selects lines 4–6 (the function) with one diagnostic on the return.
func (f *runFixture) fixArgs() map[string]any {
	return map[string]any{
		"uri":   f.uri,
		"range": map[string]any{"start": map[string]int{"line": 3, "character": 0}, "end": map[string]int{"line": 6, "character": 0}},
		"diagnostics": []map[string]any{{
			"range":    map[string]any{"start": map[string]int{"line": 4, "character": 8}, "end": map[string]int{"line": 4, "character": 13}},
			"severity": 2, "source": "vet", "code": "SA4000", "message": "Add subtracts",
		}},
	}
}

// runEvent is the catbuddy/runEvent payload as a client decodes it.
type runEvent struct {
	RunID         string   `json:"runId"`
	Kind          string   `json:"kind"`
	Tool          string   `json:"tool"`
	Output        string   `json:"output"`
	IsError       bool     `json:"isError"`
	Outcome       string   `json:"outcome"`
	Answer        string   `json:"answer"`
	Error         string   `json:"error"`
	TranscriptURI string   `json:"transcriptUri"`
	Changed       []string `json:"changed"`
	Pending       *int     `json:"pending"`
	Edit          *struct {
		Path    string `json:"path"`
		Added   int    `json:"added"`
		Removed int    `json:"removed"`
	} `json:"edit"`
}

func (f *runFixture) events(runID string) []runEvent {
	var out []runEvent
	for _, raw := range f.ed.Notifications("catbuddy/runEvent") {
		var ev runEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			panic(err) // the server's own JSON
		}
		if ev.RunID == runID {
			out = append(out, ev)
		}
	}
	return out
}

// awaitEnd waits for the run's end event and returns it.
func (f *runFixture) awaitEnd(t *testing.T, runID string) runEvent {
	t.Helper()
	var end runEvent
	f.ed.Await("run "+runID+" to end", func() bool {
		for _, ev := range f.events(runID) {
			if ev.Kind == "end" {
				end = ev
				return true
			}
		}
		return false
	})
	return end
}

func (f *runFixture) start(t *testing.T, command string, args map[string]any) string {
	t.Helper()
	var res struct {
		RunID string `json:"runId"`
	}
	if err := f.ed.ExecuteCommand(command, []any{args}, &res); err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if res.RunID == "" {
		t.Fatalf("%s answered without a runId", command)
	}
	return res.RunID
}

// progressValues returns the $/progress values sent on token, in order.
func (f *runFixture) progressValues(token string) []map[string]any {
	var out []map[string]any
	for _, raw := range f.ed.Notifications(protocol.MethodProgress) {
		var p struct {
			Token any            `json:"token"`
			Value map[string]any `json:"value"`
		}
		if json.Unmarshal(raw, &p) == nil && p.Token == token {
			out = append(out, p.Value)
		}
	}
	return out
}

func (f *runFixture) messages() []string {
	var out []string
	for _, raw := range f.ed.Notifications(protocol.MethodWindowShowMessage) {
		var m struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &m)
		out = append(out, m.Message)
	}
	return out
}

func editCall() agenttest.Turn {
	return agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{
		"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b",
	}))
}

func TestRunFixAccepted(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		agenttest.TextTurn("Add subtracted b; it now returns a + b."),
	}}, nil)

	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	end := f.awaitEnd(t, runID)

	if end.Outcome != "done" || end.Answer != "Add subtracted b; it now returns a + b." {
		t.Fatalf("end = %+v, want done with the model's answer", end)
	}
	if got := f.ed.Text(f.uri); !strings.Contains(got, "return a + b") {
		t.Errorf("buffer not fixed:\n%s", got)
	}
	if disk, _ := os.ReadFile(f.calc); string(disk) != calcGo {
		t.Errorf("the server wrote the open file behind the editor:\n%s", disk)
	}

	// The edit was a reviewed applyEdit: annotated, needing confirmation.
	edits := f.ed.AppliedEdits()
	if len(edits) != 1 {
		t.Fatalf("got %d applyEdits, want 1", len(edits))
	}
	if len(edits[0].Edit.ChangeAnnotations) == 0 {
		t.Errorf("applyEdit without change annotations: the user would not review it")
	}
	for id, a := range edits[0].Edit.ChangeAnnotations {
		if a.NeedsConfirmation == nil || !*a.NeedsConfirmation {
			t.Errorf("annotation %s does not need confirmation", id)
		}
	}

	// Progress: begin with the command's title, a report naming the edit, end.
	tokens := f.ed.ProgressTokens()
	var values []map[string]any
	for _, tok := range tokens {
		if v := f.progressValues(tok); len(v) > 0 && v[0]["title"] == "Agent: Fix This" {
			values = v
		}
	}
	if len(values) < 3 {
		t.Fatalf("run progress = %v, want begin, reports, end (tokens %v)", values, tokens)
	}
	if values[0]["kind"] != "begin" || values[0]["cancellable"] != true {
		t.Errorf("progress begin = %v, want cancellable begin", values[0])
	}
	if last := values[len(values)-1]; last["kind"] != "end" || !strings.Contains(last["message"].(string), "done") {
		t.Errorf("progress end = %v", last)
	}
	if !slices.ContainsFunc(values, func(v map[string]any) bool {
		return v["kind"] == "report" && v["message"] == "edit_file calc.go +1 -1"
	}) {
		t.Errorf("no report \"edit_file calc.go +1 -1\" in %v", values)
	}

	// runEvents stream the run; the tool result carries the edit.
	evs := f.events(runID)
	if evs[0].Kind != "start" {
		t.Errorf("first runEvent is %q, want start", evs[0].Kind)
	}
	if !slices.ContainsFunc(evs, func(ev runEvent) bool {
		return ev.Kind == "tool_result" && ev.Tool == "edit_file" && !ev.IsError && ev.Edit != nil && ev.Edit.Added == 1 && ev.Edit.Removed == 1
	}) {
		t.Errorf("no successful edit_file tool_result with +1 -1 in %+v", evs)
	}

	// The final answer is shown; the transcript is written, offered, keyless.
	if !slices.Contains(f.messages(), end.Answer) {
		t.Errorf("showMessage %q not sent; got %q", end.Answer, f.messages())
	}
	checkTranscript(t, f, end, "return a + b")
	if !strings.Contains(f.ed.Received(), `"window/showDocument"`) {
		t.Errorf("the transcript was not offered with window/showDocument")
	}

	// The model saw the task: the selection, the diagnostic, the tools; and
	// got the edit's success back under its call id.
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model got %d requests, want 2", len(reqs))
	}
	first := reqs[0]
	if !slices.Contains(first.ToolNames(), "edit_file") {
		t.Errorf("edit_file not offered to the model: %v", first.ToolNames())
	}
	var prompt strings.Builder
	for _, m := range first.Messages() {
		prompt.WriteString(m.Text)
	}
	for _, want := range []string{"return a - b", "Add subtracts", "calc.go"} {
		if !strings.Contains(prompt.String(), want) {
			t.Errorf("the model's task lacks %q:\n%s", want, prompt.String())
		}
	}
	result := lastToolResult(t, reqs[1])
	if strings.Contains(strings.ToLower(result.Content), "not applied") {
		t.Errorf("the model was told the accepted edit failed: %q", result.Content)
	}
	for _, r := range reqs {
		if r.APIKey() != testKey {
			t.Errorf("request %d carried key %q, want the configured one", r.Index, r.APIKey())
		}
	}
}

func TestRunFixRejected(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		editCall(),
		agenttest.TextTurn("Understood, I left calc.go as it was."),
	}}, nil)
	f.ed.SetApplyEdit(fake.Reject("rejected by user"))

	runID := f.start(t, "catbuddy.run", mergeArgs(f.fixArgs(), map[string]any{"command": "fix"}))
	end := f.awaitEnd(t, runID)

	if end.Outcome != "done" || end.Answer != "Understood, I left calc.go as it was." {
		t.Fatalf("end = %+v, want a clean end with the model's answer", end)
	}
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("buffer changed although the edit was rejected:\n%s", got)
	}
	if disk, _ := os.ReadFile(f.calc); string(disk) != calcGo {
		t.Errorf("disk changed although the edit was rejected:\n%s", disk)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model got %d requests, want 2", len(reqs))
	}
	result := lastToolResult(t, reqs[1])
	if !strings.Contains(result.Content, "not applied") || !strings.Contains(result.Content, "rejected by user") {
		t.Errorf("the model was not told the edit was rejected and why: %q", result.Content)
	}
	evs := f.events(runID)
	if !slices.ContainsFunc(evs, func(ev runEvent) bool { return ev.Kind == "tool_result" && ev.IsError && ev.Edit == nil }) {
		t.Errorf("no failed tool_result event for the rejected edit: %+v", evs)
	}
	checkTranscript(t, f, end, "rejected by user")
}

func TestRunCancel(t *testing.T) {
	for _, via := range []string{"catbuddy.cancel", "window/workDoneProgress/cancel"} {
		t.Run(via, func(t *testing.T) {
			f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
				{Text: "Looking at it, one moment while I think about this", Hang: true, After: 1},
				agenttest.TextTurn("second run answers"),
			}}, nil)
			runID := f.start(t, "catbuddy.fix", f.fixArgs())
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if _, err := f.model.WaitRequests(ctx, 1); err != nil {
				t.Fatalf("the model never got the run's request: %v", err)
			}

			// One run per document: a second request names the running one.
			err := f.ed.ExecuteCommand("catbuddy.fix", []any{f.fixArgs()}, nil)
			if err == nil || !strings.Contains(err.Error(), runID) || !strings.Contains(err.Error(), "calc.go") ||
				!strings.Contains(err.Error(), "Agent: Cancel Run") || strings.Contains(err.Error(), "on on") {
				t.Errorf("second run on the same document: err = %v, want a refusal naming %s, calc.go and Agent: Cancel Run", err, runID)
			}
			// Expected, not a failure of the server: RequestFailed, which
			// the clients show as a warning.
			if je := (*jsonrpc2.Error)(nil); !errors.As(err, &je) || je.Code != -32803 {
				t.Errorf("the busy refusal is %#v, want a JSON-RPC error with code -32803 (RequestFailed)", err)
			}

			switch via {
			case "catbuddy.cancel":
				var res struct {
					Cancelled int `json:"cancelled"`
				}
				if err := f.ed.ExecuteCommand("catbuddy.cancel", []any{map[string]string{"runId": runID}}, &res); err != nil || res.Cancelled != 1 {
					t.Fatalf("catbuddy.cancel = %+v, %v; want 1 cancelled", res, err)
				}
			default:
				token := runToken(t, f)
				f.ed.Notify(protocol.MethodWindowWorkDoneProgressCancel, map[string]any{"token": token})
			}
			end := f.awaitEnd(t, runID)
			if end.Outcome != "cancelled" || !strings.Contains(end.Error, "cancelled by the user") {
				t.Errorf("end = %+v, want cancelled by the user", end)
			}
			if want := "Agent: Fix This: cancelled by the user."; !slices.Contains(f.messages(), want) {
				t.Errorf("showMessage %q not sent; got %q", want, f.messages())
			}
			if got := f.ed.Text(f.uri); got != calcGo {
				t.Errorf("a cancelled run changed the buffer:\n%s", got)
			}
			// The document is free again.
			next := f.start(t, "catbuddy.fix", f.fixArgs())
			if e := f.awaitEnd(t, next); e.Outcome != "done" || e.Answer != "second run answers" {
				t.Errorf("run after the cancel: %+v", e)
			}
		})
	}
}

// TestRunEndShownByClient: a client with the experimental capability
// catbuddy.runEnd renders the end event itself, so the server neither shows
// the answer nor opens the transcript, and the end event still has both.
func TestRunEndShownByClient(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("It adds.")}},
		func(c *protocol.ClientCapabilities) {
			c.Experimental = protocol.LSPAny(`{"catbuddy":{"runEnd":true}}`)
		})
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	end := f.awaitEnd(t, runID)
	if end.Outcome != "done" || end.Answer != "It adds." || end.TranscriptURI == "" {
		t.Errorf("end = %+v, want done with the answer and a transcript", end)
	}
	if msgs := f.messages(); len(msgs) != 0 {
		t.Errorf("showMessage sent to a client that shows run ends itself: %q", msgs)
	}
	if strings.Contains(f.ed.Received(), `"window/showDocument"`) {
		t.Errorf("the transcript was opened for a client that opens it on request")
	}
	// Nothing of cb-ls's is left in the project: the transcript and the
	// session live in the user's state directory.
	if _, err := os.Lstat(filepath.Join(f.dir, ".catbuddy")); !os.IsNotExist(err) {
		t.Errorf("the project has a .catbuddy/ after a run (%v): cb-ls keeps its state in the user's state directory", err)
	}
}

func TestRunRefusals(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{}, nil)
	for name, tc := range map[string]struct {
		command string
		args    any
		want    string
	}{
		"unknown command": {"catbuddy.run", mergeArgs(f.fixArgs(), map[string]any{"command": "nope"}), `unknown command "nope"`},
		"no argument":     {"catbuddy.run", nil, "expected one argument"},
		"no uri":          {"catbuddy.run", map[string]any{"command": "fix"}, "missing uri"},
		"outside":         {"catbuddy.fix", map[string]any{"uri": fileuri.FromPath("/etc/hostname")}, "/etc/hostname"},
		"contradiction":   {"catbuddy.fix", mergeArgs(f.fixArgs(), map[string]any{"command": "explain"}), "contradicts"},
	} {
		t.Run(name, func(t *testing.T) {
			var args []any
			if tc.args != nil {
				args = []any{tc.args}
			}
			err := f.ed.ExecuteCommand(tc.command, args, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if n := len(f.model.Requests()); n != 0 {
		t.Errorf("refused runs reached the model %d times", n)
	}
}

func TestRunListCommandsAndCodeActions(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{}, nil)
	f.ed.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"catbuddy": map[string]any{
		"customCommands": []map[string]string{{"id": "tests", "title": "Agent: Write tests", "prompt": "Write tests for ${selection}"}},
	}}})
	var cmds []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	f.ed.Await("the custom command to be listed", func() bool {
		cmds = nil
		if err := f.ed.ExecuteCommand("catbuddy.listCommands", nil, &cmds); err != nil {
			t.Fatal(err)
		}
		return len(cmds) == 4
	})
	var ids []string
	for _, c := range cmds {
		ids = append(ids, c.ID+"="+c.Title)
	}
	if want := []string{"fix=Agent: Fix This", "explain=Agent: Explain This", "ask=Agent: Ask…", "tests=Agent: Write tests"}; !slices.Equal(ids, want) {
		t.Errorf("listCommands = %v, want %v", ids, want)
	}

	var actions []struct {
		Title   string `json:"title"`
		Kind    string `json:"kind"`
		Command struct {
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	err := f.ed.Call(protocol.MethodTextDocumentCodeAction, map[string]any{
		"textDocument": map[string]any{"uri": f.uri},
		"range":        map[string]any{"start": map[string]int{"line": 4, "character": 0}, "end": map[string]int{"line": 4, "character": 5}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	if err != nil {
		t.Fatal(err)
	}
	byTitle := map[string]int{}
	for i, a := range actions {
		byTitle[a.Title] = i
	}
	for _, title := range []string{"Agent: Fix This", "Agent: Explain This", "Agent: Write tests"} {
		if _, ok := byTitle[title]; !ok {
			t.Errorf("no code action %q in %+v", title, actions)
		}
	}
	if i, ok := byTitle["Agent: Write tests"]; ok {
		a := actions[i]
		var arg struct {
			Command string `json:"command"`
			URI     string `json:"uri"`
		}
		if a.Command.Command != "catbuddy.run" || len(a.Command.Arguments) != 1 || json.Unmarshal(a.Command.Arguments[0], &arg) != nil ||
			arg.Command != "tests" || arg.URI != string(f.uri) {
			t.Errorf("custom code action = %+v, want catbuddy.run {command: tests, uri}", a)
		}
	}
}

func TestRunTranscriptCommand(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("It adds two ints.")}}, nil)
	var none struct{ URI string }
	if err := f.ed.ExecuteCommand("catbuddy.transcript", nil, &none); err == nil || !strings.Contains(err.Error(), "no run yet") {
		t.Errorf("transcript before any run: %v, want an error", err)
	}
	runID := f.start(t, "catbuddy.run", mergeArgs(f.fixArgs(), map[string]any{"command": "explain"}))
	end := f.awaitEnd(t, runID)
	var res struct {
		URI string `json:"uri"`
	}
	if err := f.ed.ExecuteCommand("catbuddy.transcript", nil, &res); err != nil {
		t.Fatal(err)
	}
	if res.URI != end.TranscriptURI || res.URI == "" {
		t.Errorf("catbuddy.transcript = %q, want the run's %q", res.URI, end.TranscriptURI)
	}
	checkTranscript(t, f, end, "It adds two ints.")
}

// checkTranscript asserts the run's transcript is among the folder's
// sessions in the user's state directory, contains want, and never the
// key.
func checkTranscript(t *testing.T, f *runFixture, end runEvent, want string) {
	t.Helper()
	if end.TranscriptURI == "" {
		t.Fatalf("the run's end carries no transcriptUri")
	}
	path := pathOf(t, uri.URI(end.TranscriptURI))
	if dir, _ := session.DirOf(f.dir); filepath.Dir(path) != dir {
		t.Errorf("transcript %s is not in %s", path, dir)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	if !strings.Contains(string(data), want) {
		t.Errorf("transcript lacks %q:\n%s", want, data)
	}
	if strings.Contains(string(data), testKey) {
		t.Errorf("transcript contains the API key")
	}
}

func lastToolResult(t *testing.T, r agenttest.Request) agenttest.ToolResult {
	t.Helper()
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if n := len(msgs[i].ToolResults); n > 0 {
			return msgs[i].ToolResults[n-1]
		}
	}
	t.Fatalf("request %d carries no tool result", r.Index)
	return agenttest.ToolResult{}
}

// runToken returns the progress token whose begin carries the run's title.
func runToken(t *testing.T, f *runFixture) string {
	t.Helper()
	var token string
	f.ed.Await("the run's progress to begin", func() bool {
		for _, tok := range f.ed.ProgressTokens() {
			if v := f.progressValues(tok); len(v) > 0 && v[0]["title"] == "Agent: Fix This" {
				token = tok
				return true
			}
		}
		return false
	})
	return token
}

func mergeArgs(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// An unusable configuration is refused as the command's answer, before
// any run starts or any request leaves.
func TestRunUnusableProviderRefused(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{}, nil)
	// didChangeConfiguration is handled in wire order, before the command.
	f.ed.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"catbuddy": map[string]any{"provider": "nope"}}})
	err := f.ed.ExecuteCommand("catbuddy.fix", []any{f.fixArgs()}, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown provider "nope"`) {
		t.Fatalf("err = %v, want the unknown provider named", err)
	}
	if n := len(f.ed.Notifications("catbuddy/runEvent")); n != 0 {
		t.Errorf("a refused run sent %d runEvents", n)
	}
	if n := len(f.model.Requests()); n != 0 {
		t.Errorf("a refused run reached the model %d times", n)
	}
}
