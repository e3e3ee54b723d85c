package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// These tests hold the server to what a plain LSP client needs from it
// (eglot is the model): a cancel whose answer comes after the run's end,
// questions that cannot hang a run, and diagnostics told truly.

// questionFixture is a run fixture whose user config turns the sandbox
// off (so exec asks) and sets the question bound to one second; info is
// the clientInfo the editor sends (nil: "fake").
func questionFixture(t *testing.T, script agenttest.Script, info *protocol.ClientInfo, caps func(*protocol.ClientCapabilities)) *runFixture {
	t.Helper()
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	if err := os.MkdirAll(filepath.Join(cfgHome, "catbuddy"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"tools": {"execSandbox": false}, "questionTimeout": 1}`
	if err := os.WriteFile(filepath.Join(cfgHome, "catbuddy", "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return newRunFixture(t, script, caps, func(o *fake.Options) { o.ClientInfo = info })
}

// The answer to catbuddy.cancel comes after the cancelled run's end
// event and its message, on the wire: a client that stops reading at the
// reply it waits for (Emacs 28's jsonrpc) has then seen the outcome.
func TestCancelAnswersAfterTheEnd(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		{Text: "Thinking", Hang: true, After: 1},
	}}, nil)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := f.model.WaitRequests(ctx, 1); err != nil {
		t.Fatalf("the model never got the run's request: %v", err)
	}
	var res struct {
		Cancelled int `json:"cancelled"`
	}
	if err := f.ed.ExecuteCommand("catbuddy.cancel", []any{map[string]string{"runId": runID}}, &res); err != nil || res.Cancelled != 1 {
		t.Fatalf("catbuddy.cancel = %+v, %v", res, err)
	}
	wire := f.ed.Received()
	reply := strings.Index(wire, `"result":{"cancelled":1}`)
	end := strings.Index(wire, `"kind":"end"`)
	shown := strings.Index(wire, "Agent: Fix This: cancelled by the user.")
	if reply < 0 || end < 0 || shown < 0 {
		t.Fatalf("reply at %d, end event at %d, message at %d: want all three", reply, end, shown)
	}
	if end > reply || shown > reply {
		t.Errorf("the cancel's answer (byte %d) came before the end event (%d) or the message (%d)", reply, end, shown)
	}
}

// A question the editor never answers is withdrawn after the bound with
// $/cancelRequest, counts as no, and the model is told nobody answered;
// the run goes on to its end.
func TestUnansweredQuestionsAreWithdrawn(t *testing.T) {
	for _, c := range []struct {
		name, method string
		call         agenttest.Turn
		told         []string
	}{
		{"exec", protocol.MethodWindowShowMessageRequest,
			agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "touch made.txt", "write": true})),
			[]string{"no answer from the user within 1s", "counts as a no; nothing ran"}},
		{"edit", protocol.MethodWorkspaceApplyEdit, editCall(),
			[]string{"edit not applied", "no answer from the user within 1s", "the review of the edit to calc.go was withdrawn"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := questionFixture(t, agenttest.Script{Turns: []agenttest.Turn{c.call, agenttest.TextTurn("Nobody answered; I stopped there.")}}, nil, nil)
			f.ed.Ignore(c.method)
			runID := f.start(t, "catbuddy.fix", f.fixArgs())
			end := f.awaitEnd(t, runID)
			if end.Outcome != "done" || end.Answer != "Nobody answered; I stopped there." {
				t.Fatalf("end = %+v, want the run to go on to the model's answer", end)
			}
			if got := f.ed.Withdrawn(); !slices.Equal(got, []string{c.method}) {
				t.Errorf("withdrawn requests = %q, want the %s", got, c.method)
			}
			reqs := f.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("model got %d requests, want 2", len(reqs))
			}
			result := lastToolResult(t, reqs[1])
			for _, want := range c.told {
				if !strings.Contains(result.Content, want) {
					t.Errorf("the model was told %q, want it to contain %q", result.Content, want)
				}
			}
			if _, err := os.Stat(filepath.Join(f.dir, "made.txt")); err == nil {
				t.Errorf("the unanswered command ran")
			}
			if got := f.ed.Text(f.uri); got != calcGo {
				t.Errorf("the unanswered edit changed the buffer:\n%s", got)
			}
		})
	}
}

// The exec question offers Reject first: clients that pre-select the
// first action (eglot pre-fills it) then make a stray Enter a no.
func TestExecQuestionOffersRejectFirst(t *testing.T) {
	e, _, _ := execEditor(t, noSandbox)
	e.RunTool("exec", map[string]any{"command": "touch made.txt", "write": true})
	qs := e.Questions()
	if len(qs) != 1 || len(qs[0].Actions) == 0 || qs[0].Actions[0].Title != "Reject" {
		t.Fatalf("questions = %+v, want one whose first action is Reject", qs)
	}
}

// catbuddy/diagnostics answered null (eglot's answer to a request it does
// not know) or with an error means the editor cannot tell: the model is
// told exactly that, never "no diagnostics".
func TestDiagnosticsNullOrErrorIsNotClean(t *testing.T) {
	for name, answer := range map[string]func() (any, error){
		"null":  func() (any, error) { return nil, nil },
		"error": func() (any, error) { return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the linter crashed") },
	} {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, "-- calc.go --\n"+calcGo)
			e := newEditor(t, root)
			e.OpenFile(filepath.Join(root, "calc.go"))
			e.SetAnswer("catbuddy/diagnostics", answer)
			for _, args := range []map[string]any{{"path": "calc.go"}, {}} {
				out, isErr := e.RunTool("diagnostics", args)
				if !isErr || !strings.Contains(out, "this editor does not report diagnostics to cb-ls") || strings.Contains(out, "no diagnostics") {
					t.Errorf("diagnostics %v = %q (error %v), want the editor's silence told as such", args, out, isErr)
				}
			}
		})
	}
}

// An eglot that applies edits to open buffers without asking (1.16 on,
// no change annotations) gets one note, in the first run's answer, of
// what to set; an eglot that asks gets none.
func TestConsentNoticeForEglot(t *testing.T) {
	noAnnotations := func(c *protocol.ClientCapabilities) { c.Workspace.WorkspaceEdit.ChangeAnnotationSupport = nil }
	for _, c := range []struct {
		name    string
		info    *protocol.ClientInfo
		caps    func(*protocol.ClientCapabilities)
		noticed bool
	}{
		{"eglot 1.17.30", &protocol.ClientInfo{Name: "Eglot", Version: protocol.NewOptional("1.17.30")}, noAnnotations, true},
		{"eglot 1.15 (no version)", &protocol.ClientInfo{Name: "Eglot"}, noAnnotations, false},
		{"eglot with annotations", &protocol.ClientInfo{Name: "Eglot", Version: protocol.NewOptional("1.24")}, nil, false},
		{"another client", nil, noAnnotations, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := questionFixture(t, agenttest.Script{Turns: []agenttest.Turn{
				agenttest.TextTurn("first answer"), agenttest.TextTurn("second answer"),
			}}, c.info, c.caps)
			for _, want := range []string{"first answer", "second answer"} {
				f.awaitEnd(t, f.start(t, "catbuddy.fix", f.fixArgs()))
				msgs := f.messages()
				got := msgs[len(msgs)-1]
				noticed := strings.Contains(got, "eglot-confirm-server-edits")
				if !strings.HasPrefix(got, want) || noticed != (c.noticed && want == "first answer") {
					t.Errorf("answer shown = %q; want %q, with the note only after the first run of a client that applies edits unasked", got, want)
				}
			}
		})
	}
}
