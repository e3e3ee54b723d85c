package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

func rpcCode(err error) jsonrpc2.Code {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

func TestInitializeResult(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := newEditor(t, dir)
	caps := e.InitializeResult.Capabilities
	if caps.PositionEncoding != protocol.PositionEncodingKindUTF16 {
		t.Errorf("positionEncoding = %q, want utf-16", caps.PositionEncoding)
	}
	sync, ok := caps.TextDocumentSync.(*protocol.TextDocumentSyncOptions)
	if !ok || sync.Change == nil || *sync.Change != protocol.TextDocumentSyncKindIncremental {
		t.Errorf("textDocumentSync = %#v, want incremental", caps.TextDocumentSync)
	}
	if caps.Workspace == nil || caps.Workspace.WorkspaceFolders == nil || caps.Workspace.WorkspaceFolders.ChangeNotifications != protocol.Boolean(true) {
		t.Errorf("workspace folders change notifications not declared: %#v", caps.Workspace)
	}
	for _, want := range []string{lsp.CmdRunTool, lsp.CmdListTools, lsp.CmdFix} {
		found := false
		for _, c := range caps.ExecuteCommandProvider.Commands {
			found = found || c == want
		}
		if !found {
			t.Errorf("executeCommandProvider lacks %s: %v", want, caps.ExecuteCommandProvider.Commands)
		}
	}
}

func TestPositionEncodingNegotiation(t *testing.T) {
	for _, tc := range []struct {
		offered []protocol.PositionEncodingKind
		want    protocol.PositionEncodingKind
	}{
		{nil, "utf-16"},
		{[]protocol.PositionEncodingKind{"utf-8", "utf-16", "utf-32"}, "utf-16"}, // Neovim: another server may use utf-16
		{[]protocol.PositionEncodingKind{"utf-8"}, "utf-8"},
		{[]protocol.PositionEncodingKind{"utf-32"}, "utf-16"},
	} {
		t.Run(fmt.Sprint(tc.offered), func(t *testing.T) {
			dir := writeTree(t, "-- x --\n")
			e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools},
				Capabilities: func(c *protocol.ClientCapabilities) { c.General.PositionEncodings = tc.offered }})
			if got := e.InitializeResult.Capabilities.PositionEncoding; got != tc.want {
				t.Errorf("chose %q, want %q", got, tc.want)
			}
		})
	}
}

// TestUTF8Positions: with utf-8 negotiated, characters are bytes.
func TestUTF8Positions(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools},
		Capabilities: func(c *protocol.ClientCapabilities) {
			c.General.PositionEncodings = []protocol.PositionEncodingKind{"utf-8"}
		}})
	path := filepath.Join(dir, "u.txt")
	u := e.OpenText(path, "😀x\n")
	e.Notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Character: 4}, End: protocol.Position{Character: 5}}, Text: "y"}},
	})
	if got := readProbe(t, e, path); got != "😀y\n" {
		t.Errorf("got %q", got)
	}
}

func TestLifecycleErrors(t *testing.T) {
	e := fake.New(t, fake.Options{NoInitialize: true, Server: lsp.Options{RegisterTools: testTools}})
	err := e.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": lsp.CmdListTools}, nil)
	if rpcCode(err) != jsonrpc2.ServerNotInitialized {
		t.Errorf("request before initialize: %v, want ServerNotInitialized", err)
	}
	e.Initialize(fake.Options{Folders: []string{t.TempDir()}})
	if err := e.Call(protocol.MethodInitialize, map[string]any{"capabilities": map[string]any{}}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: %v, want InvalidRequest", err)
	}
	if err := e.Call("textDocument/hover", map[string]any{}, nil); rpcCode(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: %v, want MethodNotFound", err)
	}
	e.Notify("$/unknownNotification", map[string]any{}) // ignored
	if err := e.Call(protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": lsp.CmdListTools}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("request after shutdown: %v, want InvalidRequest", err)
	}
	if err := e.Exit(); err != nil {
		t.Errorf("shutdown+exit: Serve returned %v, want nil", err)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	e := newEditor(t, t.TempDir())
	if err := e.Exit(); !errors.Is(err, lsp.ErrExitWithoutShutdown) {
		t.Errorf("exit without shutdown: Serve returned %v, want ErrExitWithoutShutdown", err)
	}
}

// TestCancelRequest: a command waiting for the user's review is cancelled
// with $/cancelRequest and answers RequestCancelled.
func TestCancelRequest(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nabc\n")
	e := newEditor(t, dir)
	e.OpenFile(filepath.Join(dir, "a.txt"))
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	e.SetApplyEdit(fake.Delay(never, fake.Reject("test over")))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- e.CallCtx(ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{
			"command":   lsp.CmdRunTool,
			"arguments": []any{map[string]any{"name": "test_apply", "arguments": map[string]any{"path": "a.txt", "start": 0, "end": 1, "text": "A"}}},
		}, nil)
	}()
	e.Await("the applyEdit request", func() bool { return len(e.AppliedEdits()) == 1 })
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("cancelled call returned no error")
	}
	// protocol.Call returns ctx's error locally; the server's answer must be
	// -32800, which the log shows. Check it on the wire with a raw call.
	e.Await("the -32800 answer", func() bool { return strings.Contains(e.Received(), `"code":-32800`) })
}

// TestCancelStringID: $/cancelRequest with a string id.
func TestCancelStringID(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nabc\n")
	e := newEditor(t, dir)
	e.OpenFile(filepath.Join(dir, "a.txt"))
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	e.SetApplyEdit(fake.Delay(never, fake.Reject("test over")))
	call := `{"jsonrpc":"2.0","id":"req-A","method":"workspace/executeCommand","params":{"command":"catbuddy.runTool","arguments":[{"name":"test_apply","arguments":{"path":"a.txt","start":0,"end":1,"text":"A"}}]}}`
	if err := e.WriteRaw(frame(call)); err != nil {
		t.Fatal(err)
	}
	e.Await("the applyEdit request", func() bool { return len(e.AppliedEdits()) == 1 })
	if err := e.WriteRaw(frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"req-A"}}`)); err != nil {
		t.Fatal(err)
	}
	e.Await("the -32800 answer to req-A", func() bool {
		return strings.Contains(e.Received(), `"id":"req-A"`) && strings.Contains(e.Received(), `"code":-32800`)
	})
}

func frame(body string) []byte {
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// TestMalformedInput: garbage frames and bad params are answered or
// logged; the session goes on.
func TestMalformedInput(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nok\n")
	e := newEditor(t, dir)
	for _, raw := range [][]byte{
		frame(`{not json`),
		frame(`[]`),
		frame(`"just a string"`),
		[]byte("Content-Type: nothing\r\n\r\n"),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":42}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"not a uri"}}}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nowhere.txt","version":3},"contentChanges":[{"text":"x"}]}}`),
		frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"bad":true}}}`),
		frame(`{"jsonrpc":"2.0","method":"workspace/didChangeWorkspaceFolders","params":{"event":"nope"}}`),
	} {
		if err := e.WriteRaw(raw); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	err := e.Call(protocol.MethodWorkspaceExecuteCommand, json.RawMessage(`{"command":42}`), nil)
	if rpcCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("bad executeCommand params: %v, want InvalidParams", err)
	}
	err = e.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": lsp.CmdRunTool, "arguments": []any{"not an object"}}, nil)
	if rpcCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("bad runTool argument: %v, want InvalidParams", err)
	}
	err = e.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": "catbuddy.nope"}, nil)
	if err == nil {
		t.Errorf("unknown command succeeded")
	}
	if got := readProbe(t, e, "a.txt"); got != "ok\n" {
		t.Errorf("after malformed input the server read %q", got)
	}
	if !strings.Contains(e.Received(), `"code":-32700`) {
		t.Errorf("no ParseError answer for the garbage frame")
	}
}

func TestListTools(t *testing.T) {
	e := newEditor(t, t.TempDir())
	var list []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := e.ExecuteCommand(lsp.CmdListTools, nil, &list); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range list {
		names[tl.Name] = true
		if len(tl.InputSchema) == 0 {
			t.Errorf("%s has no input schema", tl.Name)
		}
	}
	for _, want := range []string{"read_file", "edit_file", "write_file", "test_read"} {
		if !names[want] {
			t.Errorf("listTools lacks %s", want)
		}
	}
}

func TestCodeActionFixThis(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.go"))
	rng := protocol.Range{End: protocol.Position{Line: 0, Character: 7}}
	diag := protocol.Diagnostic{Range: rng, Message: protocol.String("boom"), Severity: protocol.DiagnosticSeverityError}
	for _, tc := range []struct {
		diags []protocol.Diagnostic
		kind  protocol.CodeActionKind
	}{{nil, protocol.CodeActionKindRefactor}, {[]protocol.Diagnostic{diag}, protocol.CodeActionKindQuickFix}} {
		var actions []protocol.CommandOrCodeAction
		params := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: rng, Context: protocol.CodeActionContext{Diagnostics: tc.diags}}
		if tc.diags == nil {
			params.Context.Diagnostics = []protocol.Diagnostic{}
		}
		if err := e.Call(protocol.MethodTextDocumentCodeAction, params, &actions); err != nil {
			t.Fatal(err)
		}
		var fix *protocol.CodeAction
		for _, a := range actions {
			if ca, ok := a.(*protocol.CodeAction); ok && ca.Title == "Agent: Fix This" {
				fix = ca
			}
		}
		if fix == nil {
			t.Fatalf("no Agent: Fix This in %#v", actions)
		}
		if fix.Kind == nil || *fix.Kind != tc.kind {
			t.Errorf("kind = %v, want %s", fix.Kind, tc.kind)
		}
		if fix.Command.Command != lsp.CmdFix || len(fix.Command.Arguments) != 1 {
			t.Fatalf("command = %+v", fix.Command)
		}
		var arg struct {
			URI         string                `json:"uri"`
			Range       protocol.Range        `json:"range"`
			Diagnostics []protocol.Diagnostic `json:"diagnostics"`
		}
		if err := protocol.Unmarshal(fix.Command.Arguments[0], &arg); err != nil {
			t.Fatal(err)
		}
		if arg.URI != string(u) || arg.Range != rng || len(arg.Diagnostics) != len(tc.diags) {
			t.Errorf("fix argument = %+v", arg)
		}
	}
}

// TestFixAnswersAtOnce: catbuddy.fix never hangs. With the run engine
// wired it starts a run ({runId}) or refuses with an error; without it, the
// fallback answers "no model configured" (TestFixFallback in package lsp).
func TestFixAnswersAtOnce(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n")
	e := newEditor(t, dir)
	u := e.OpenFile(filepath.Join(dir, "a.go"))
	var res struct {
		RunID string `json:"runId"`
	}
	err := e.ExecuteCommand(lsp.CmdFix, []any{map[string]any{"uri": string(u), "range": protocol.Range{}}}, &res)
	if err == nil && res.RunID == "" {
		t.Errorf("catbuddy.fix answered neither a run id nor an error")
	}
	if err != nil && rpcCode(err) == 0 {
		t.Errorf("catbuddy.fix failed without a JSON-RPC answer: %v", err)
	}
	if res.RunID != "" {
		// The run writes its transcript and session into dir as it ends.
		e.Await("the run to end", func() bool {
			return strings.Contains(strings.Join(rawStrings(e.Notifications("catbuddy/runEvent")), "\n"), `"kind":"end"`)
		})
	}
}

func rawStrings(raws []json.RawMessage) []string {
	out := make([]string, len(raws))
	for i, r := range raws {
		out[i] = string(r)
	}
	return out
}

// TestSettingsSources: initializationOptions and workspace/configuration
// both reach the agent config (seen through catbuddy.listCommands, which
// lists custom commands); an apiKey from workspace/configuration is ignored.
func TestSettingsSources(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	cmds := []map[string]string{{"id": "tests", "title": "Agent: Write tests", "prompt": "Write tests for ${selection}"}}
	e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools},
		Configuration: map[string]any{"catbuddy": map[string]any{"customCommands": cmds}}})
	e.Await("custom command from workspace/configuration", func() bool {
		var list []struct {
			ID string `json:"id"`
		}
		if err := e.ExecuteCommand("catbuddy.listCommands", nil, &list); err != nil {
			t.Fatalf("listCommands: %v", err)
		}
		for _, c := range list {
			if c.ID == "tests" {
				return true
			}
		}
		return false
	})
}
