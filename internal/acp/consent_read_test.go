package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// A client that refuses fs/read_text_file (acpx --deny-all answers
// -32603 "Permission denied") has said no for the user: the file's text
// is not read from the disk instead, so it never reaches the model, and
// neither does a rules file the client refused.
func TestRefusedReadIsNotSentToTheModel(t *testing.T) {
	const secret = "SECRET-ON-DISK-42"
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("grep", map[string]any{"pattern": "SECRET", "path": "calc.go"})),
		agenttest.TextTurn("I was not allowed to read it."),
	}})
	root := env(t, srv, "openai", map[string]string{
		"calc.go":   "package calc // " + secret + "\n",
		"AGENTS.md": "Rules: " + secret + "\n",
	})
	c := newTestClient(t)
	c.refuseReads = true
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if res, err := prompt(t, conn, id, "what is in calc.go?", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %v %v", res.StopReason, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if strings.Contains(r.System(), secret) || strings.Contains(r.LastUserText(), secret) {
			t.Errorf("request %d carries the refused text", i)
		}
		for _, tr := range r.ToolResults() {
			if strings.Contains(tr.Content, secret) {
				t.Errorf("request %d: a tool result carries the refused text: %q", i, tr.Content)
			}
		}
	}
	res := reqs[1].ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Content, "refused") || !strings.Contains(res[0].Content, "Permission denied") {
		t.Errorf("the model was not told the editor refused: %+v", res)
	}
	calc := filepath.Join(root, "calc.go")
	asked := 0
	for _, p := range c.reads {
		if p == calc {
			asked++
		}
	}
	if asked != 2 {
		t.Errorf("calc.go asked of the client %d times, want 2 (read_file, grep): %v", asked, c.reads)
	}

	// A file attached to the prompt is read the same way: refused, the
	// prompt fails and the model is not asked.
	_, err := prompt(t, conn, id, "/explain", calc)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a prompt whose document was refused: %v, want an error saying so", err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model requests after the refused document, want still 3", n)
	}
}

// "No such file" from the client is not a refusal: the disk answers, and
// the model hears the precise "file not found". A file on no disk is not
// asked of the client at all, so the rules files (AGENTS.md, CLAUDE.md,
// .github/copilot-instructions.md), looked for on every prompt, never
// show up as errors in the client; one that exists is read through the
// client, unsaved text included.
func TestMissingFilesAreNotAskedOfTheClient(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "nope.go"})),
		agenttest.TextTurn("No such file."),
		agenttest.TextTurn("Still none."),
		agenttest.TextTurn("Now with rules."),
	}})
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	c := newTestClient(t)
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	for _, text := range []string{"read nope.go", "and again"} {
		if res, err := prompt(t, conn, id, text, ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("session/prompt %q: %v %v", text, res.StopReason, err)
		}
	}
	if len(c.reads) != 0 {
		t.Errorf("the client was asked for files that are on no disk: %v", c.reads)
	}
	if res := srv.Requests()[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, "file not found: nope.go") {
		t.Errorf("read_file of a missing file: %+v", res)
	}

	agents := filepath.Join(root, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("Rules on disk.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.buffers[agents] = "Rules in the buffer, unsaved.\n"
	c.mu.Unlock()
	if _, err := prompt(t, conn, id, "once more", ""); err != nil {
		t.Fatal(err)
	}
	if sys := srv.Requests()[3].System(); !strings.Contains(sys, "Rules in the buffer, unsaved.") {
		t.Errorf("the rules file was not read through the client")
	}
	if len(c.reads) != 1 || c.reads[0] != agents {
		t.Errorf("client reads %v, want only AGENTS.md", c.reads)
	}
}

// CodeCompanion answers fs/read_text_file from the disk and its
// fs/write_text_file replaces the open buffer and saves it, losing the
// user's unsaved text. With it cb-ls reads the disk itself and writes the
// change atomically to the disk, never through the client: the unsaved
// buffer stays as the user left it, and Neovim's "file changed on disk"
// check puts the two before the user. A new file is created as well
// (CodeCompanion answers a missing file with empty text).
func TestCodeCompanionWritesToDiskAndKeepsTheBuffer(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "new.go", "content": "package calc\n"})),
		agenttest.TextTurn("Fixed."),
	}})
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	calc := filepath.Join(root, "calc.go")
	c := newTestClient(t)
	c.buffers[calc] = calcBuffer
	c.answer = allow
	conn := connectAs(t, c, fullFS, "CodeCompanion.nvim")
	id := newSession(t, conn, root)
	if res, err := prompt(t, conn, id, "fix Add", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %v %v", res.StopReason, err)
	}
	if c.nReads != 0 || c.nWrites != 0 {
		t.Errorf("%d fs/read_text_file and %d fs/write_text_file, want none", c.nReads, c.nWrites)
	}
	if len(c.perms) != 2 {
		t.Errorf("%d questions, want 2: every change is still asked about", len(c.perms))
	}
	if disk, _ := os.ReadFile(calc); string(disk) != strings.Replace(calcDisk, "a - b", "a + b", 1) {
		t.Errorf("calc.go on disk: %q", disk)
	}
	if c.buffers[calc] != calcBuffer {
		t.Errorf("the unsaved buffer changed: %q", c.buffers[calc])
	}
	if b, err := os.ReadFile(filepath.Join(root, "new.go")); err != nil || string(b) != "package calc\n" {
		t.Errorf("new.go: %q %v", b, err)
	}
}
