package acp_test

import (
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// CodeCompanion sends an attached buffer as a text block naming its
// path and the request, slash command first, as the next block. The
// blocks are separate paragraphs, the command is seen in the second
// block, the named file is the run's document, read from the disk and
// said to be, and the session's title is the user's request.
func TestPromptBlocksCodeCompanion(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("Done."), agenttest.TextTurn("Two paragraphs.")}})
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	calc := filepath.Join(root, "calc.go")
	c := newTestClient(t)
	conn := connectAs(t, c, fullFS, "CodeCompanion.nvim")
	id := newSession(t, conn, root)
	_, err := conn.Prompt(t.Context(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("Sharing the following file as context: " + calc),
		sdk.TextBlock("/fix Add returns the difference"),
	}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	first := srv.Requests()[0].LastUserText()
	for _, want := range []string{"Fix the selected code in calc.go.", "Add returns the difference", "File: calc.go", "return a - b"} {
		if !strings.Contains(first, want) {
			t.Errorf("the task lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "calc.go/fix") || strings.Contains(first, "Sharing the following file") {
		t.Errorf("the blocks were glued or the note kept:\n%s", first)
	}
	// CodeCompanion serves no unsaved text: cb-ls read the disk, and the
	// task says so.
	if !strings.Contains(first, "The whole file, as saved on disk:") || strings.Contains(first, "unsaved changes included") {
		t.Errorf("the task does not say the file is the disk's:\n%s", first)
	}
	list, err := conn.ListSessions(t.Context(), sdk.ListSessionsRequest{Cwd: &root})
	if err != nil || len(list.Sessions) != 1 {
		t.Fatalf("session/list: %+v %v", list, err)
	}
	if got := deref(list.Sessions[0].Title); got != "Add returns the difference" {
		t.Errorf("title %q, want the request", got)
	}

	// A reply of two text blocks keeps them apart.
	if _, err := conn.Prompt(t.Context(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("first paragraph"), sdk.TextBlock("second paragraph"),
	}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[1].LastUserText(); !strings.Contains(got, "first paragraph\n\nsecond paragraph") {
		t.Errorf("reply text %q", got)
	}
}

// /fix with no file attached tells the model to find the code, instead
// of "Fix the selected code in ." with no file and no selection.
func TestFixWithoutFile(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("Looked around.")}})
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "/fix Add in calc.go subtracts", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	first := srv.Requests()[0].LastUserText()
	if strings.Contains(first, " in .") || strings.Contains(first, "selected code") {
		t.Errorf("the task names an empty file or a selection:\n%s", first)
	}
	for _, want := range []string{"/fix", "without attaching a file", "Add in calc.go subtracts"} {
		if !strings.Contains(first, want) {
			t.Errorf("the task lacks %q:\n%s", want, first)
		}
	}
	// The commands' hints name no one client's way of attaching a file
	// (Zed's @, CodeCompanion's #{buffer}; acpx has none).
	c.mu.Lock()
	defer c.mu.Unlock()
	hints := 0
	for _, u := range c.updates {
		if ac := u.Update.AvailableCommandsUpdate; ac != nil {
			for _, cmd := range ac.AvailableCommands {
				if cmd.Input != nil && cmd.Input.Unstructured != nil {
					hints++
					if h := cmd.Input.Unstructured.Hint; strings.Contains(h, "@") {
						t.Errorf("/%s hint %q", cmd.Name, h)
					}
				}
			}
		}
	}
	if hints == 0 {
		t.Error("no command hints announced")
	}
}

// A session created and never prompted can be loaded by another process
// (acpx: `sessions new`, then `prompt -s`): its first prompt then starts
// the run under that id. An id nobody created is still refused.
func TestLoadSessionBeforeItsFirstPrompt(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("Hello from the loaded session.")}})
	root := env(t, srv, "openai", nil)
	// Each connection is its own agent, as each acpx command starts one.
	first := connect(t, newTestClient(t), fullFS)
	id := newSession(t, first, root)

	c := newTestClient(t)
	second := connect(t, c, fullFS)
	res, err := second.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load of a session never prompted: %v", err)
	}
	if len(res.ConfigOptions) == 0 {
		t.Error("session/load answered no config options")
	}
	if r, err := prompt(t, second, id, "hello", ""); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %v %v", r.StopReason, err)
	}
	list, err := second.ListSessions(t.Context(), sdk.ListSessionsRequest{Cwd: &root})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id {
		t.Errorf("session/list %+v %v, want the one session %s", list.Sessions, err, id)
	}
	// Stored now: it loads (and replays) like any other.
	third := connect(t, newTestClient(t), fullFS)
	if _, err := third.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Errorf("session/load after the first prompt: %v", err)
	}
	_, err = third.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: "r0badc0de", Cwd: root, McpServers: []sdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "-32602") {
		t.Errorf("session/load of an id nobody created: %v, want -32602", err)
	}
}
