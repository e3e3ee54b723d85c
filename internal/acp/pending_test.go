package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestPendingOneQuestionPerTurn: a turn that edits one file, creates
// another and runs a command that writes a third asks nothing while it
// works, then asks ONE question carrying the diff of every pending file.
// Reject leaves every file as it was; on the next turn the model hears
// that the user discarded them, and Allow keeps that turn's edit.
func TestPendingOneQuestionPerTurn(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "a.txt"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "ONE"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "new.txt", "content": "new\n"})),
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "cat a.txt > copy.txt", "write": true, "reason": "copy it"})),
		agenttest.TextTurn("Three changes."),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "One"})),
		agenttest.TextTurn("Just one now."),
	}})
	root := env(t, srv, "openai", map[string]string{"a.txt": "one\n"})
	c := newTestClient(t)
	c.review = "" // pending, the default
	c.answer = reject
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if res, err := prompt(t, conn, id, "change things", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("first prompt: %v %v", res.StopReason, err)
	}
	if len(c.perms) != 1 {
		t.Fatalf("%d questions in the first turn, want ONE at its end", len(c.perms))
	}
	q := c.perms[0]
	diffs := map[string]bool{}
	for _, ct := range q.ToolCall.Content {
		if ct.Diff != nil {
			diffs[filepath.Base(ct.Diff.Path)] = true
		}
	}
	for _, name := range []string{"a.txt", "new.txt", "copy.txt"} {
		if !diffs[name] {
			t.Errorf("the question carries no diff of %s: %v", name, diffs)
		}
	}
	kinds := map[sdk.PermissionOptionKind]bool{}
	for _, o := range q.Options {
		kinds[o.Kind] = true
	}
	if !kinds[sdk.PermissionOptionKindAllowOnce] || !kinds[sdk.PermissionOptionKindAllowAlways] || !kinds[sdk.PermissionOptionKindRejectOnce] {
		t.Errorf("options %+v, want Allow, Allow all for the session, Reject", q.Options)
	}
	if c.nWrites != 0 {
		t.Errorf("%d writes although the user rejected the turn's changes", c.nWrites)
	}
	for _, name := range []string{"new.txt", "copy.txt"} {
		if _, err := os.Stat(filepath.Join(root, name)); !os.IsNotExist(err) {
			t.Errorf("%s reached the disk although rejected: %v", name, err)
		}
	}

	c.answer = allow
	if res, err := prompt(t, conn, id, "only the first letter", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("second prompt: %v %v", res.StopReason, err)
	}
	if len(c.perms) != 2 || c.writes[filepath.Join(root, "a.txt")] != "One\n" {
		t.Errorf("%d questions, writes %q; want a second question and a.txt kept", len(c.perms), c.writes)
	}
	reqs := srv.Requests()
	if news := reqs[5].LastUserText(); !strings.Contains(news, "discarded") {
		t.Errorf("the second turn does not tell the model what was discarded:\n%s", news)
	}
}
