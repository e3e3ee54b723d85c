package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// The end-of-turn review of a client without the pendingChanges
// capability, as eglot answers it: a "no" (as a refusal, or as eglot
// 1.17's applied:true with nothing changed), no answer at all, and a
// client that cannot create files.

// reviewFixture is a pending fixture for a client without the
// capability, with a one-second question bound; adjust changes the
// editor's options further (nil: none).
func reviewFixture(t *testing.T, turns []agenttest.Turn, adjust func(*fake.Options)) *runFixture {
	t.Helper()
	return newRunFixtureWith(t, agenttest.Script{Turns: turns}, func(o *fake.Options, init map[string]any) {
		init["questionTimeout"] = 1
		if adjust != nil {
			adjust(o)
		}
	})
}

// toldAtReply replies to runID and returns what the model's next request
// carried (its messages as JSON, lower-cased).
func (f *runFixture) toldAtReply(t *testing.T, runID string) string {
	t.Helper()
	f.reply(t, runID, "what happened?")
	f.awaitTurnEnd(t, runID, 2)
	reqs := f.model.Requests()
	b, _ := json.Marshal(reqs[len(reqs)-1].Body["messages"])
	return strings.ToLower(string(b))
}

// A refused review discards what it offered: nothing stays pending, the
// user is told so in plain words (no command to type), and the model
// hears it when the user replies. eglot 1.9 refuses with an error,
// eglot 1.17 with applied:true and an unchanged buffer.
func TestPendingReviewRefusedIsDiscarded(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer fake.ApplyHandler
	}{
		{"refusal", fake.Reject("User cancelled server edit")},
		{"applied but unchanged", fake.Lie},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := reviewFixture(t, []agenttest.Turn{editCall(), agenttest.TextTurn("Fixed."), agenttest.TextTurn("Understood.")}, nil)
			f.ed.SetApplyEdit(c.answer)
			runID := f.start(t, "catbuddy.fix", f.fixArgs())
			if end := f.awaitEnd(t, runID); end.Outcome != "done" {
				t.Fatalf("run ended %+v", end)
			}
			if n := len(f.ed.AppliedEdits()); n != 1 {
				t.Fatalf("%d applyEdits, want the one review", n)
			}
			if got := f.ed.Text(f.uri); got != calcGo {
				t.Errorf("the refused review changed the buffer:\n%s", got)
			}
			msgs := strings.Join(f.messages(), "\n")
			if !strings.Contains(msgs, "Agent: Fix This: you refused its changes, so they were discarded.") {
				t.Errorf("the user was not told plainly; messages:\n%s", msgs)
			}
			if strings.Contains(msgs, "still pending") || strings.Contains(msgs, "catbuddy.keep") {
				t.Errorf("a refused review is offered again; messages:\n%s", msgs)
			}
			var list lsp.PendingList
			if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{"runId": runID}}, &list); err != nil || len(list.Runs) != 0 {
				t.Errorf("after the refusal pendingChanges = %+v, %v; want nothing left", list, err)
			}
			if told := f.toldAtReply(t, runID); !strings.Contains(told, "the user discarded hunk 1 of calc.go") {
				t.Errorf("the model's next turn does not say the edit was discarded:\n%s", told)
			}
		})
	}
}

// A review nobody answers is withdrawn after questionTimeout and counts
// as no: the set is discarded, the user is told, and the model hears
// that nobody answered.
func TestPendingReviewUnansweredIsDiscarded(t *testing.T) {
	f := reviewFixture(t, []agenttest.Turn{editCall(), agenttest.TextTurn("Fixed."), agenttest.TextTurn("Nobody answered.")}, nil)
	f.ed.Ignore(protocol.MethodWorkspaceApplyEdit)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	if logs := f.ed.Notifications(protocol.MethodWindowLogMessage); !slices.ContainsFunc(logs, func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), "waiting for the user's answer to the review of the edit to calc.go")
	}) {
		t.Errorf("no write followed the unanswered review (a client that left it unread never sees it)")
	}
	if got := f.ed.Withdrawn(); !slices.Equal(got, []string{protocol.MethodWorkspaceApplyEdit}) {
		t.Errorf("withdrawn requests = %q, want the review", got)
	}
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("the unanswered review changed the buffer:\n%s", got)
	}
	if msgs := strings.Join(f.messages(), "\n"); !strings.Contains(msgs, "no answer to the review of its changes, so they were discarded") {
		t.Errorf("the user was not told; messages:\n%s", msgs)
	}
	told := f.toldAtReply(t, runID)
	for _, want := range []string{"no answer from the user within 1s", "counts as no", "the user discarded hunk 1 of calc.go"} {
		if !strings.Contains(told, want) {
			t.Errorf("the model's next turn lacks %q:\n%s", want, told)
		}
	}
}

// A client that cannot create files (eglot declares no resource
// operations) is never sent a review without a change: a run that only
// created a file sends no applyEdit, and the user hears where the file
// is and what keeps it. A set with a changed file too offers that one.
func TestPendingReviewWithoutCreateSupport(t *testing.T) {
	noOps := func(o *fake.Options) {
		o.Capabilities = func(c *protocol.ClientCapabilities) { c.Workspace.WorkspaceEdit.ResourceOperations = nil }
	}
	write := agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "notes.txt", "content": "fixed Add\n"}))
	t.Run("only a new file", func(t *testing.T) {
		f := reviewFixture(t, []agenttest.Turn{write, agenttest.TextTurn("Noted.")}, noOps)
		runID := f.start(t, "catbuddy.fix", f.fixArgs())
		f.awaitEnd(t, runID)
		if n := len(f.ed.AppliedEdits()); n != 0 {
			t.Errorf("%d applyEdits for a change this client cannot make: %+v", n, f.ed.AppliedEdits()[0].Edit)
		}
		msgs := strings.Join(f.messages(), "\n")
		if !strings.Contains(msgs, "notes.txt stayed out of the review") || !strings.Contains(msgs, "cb-ls changes --keep "+runID) {
			t.Errorf("the user was not told what to do; messages:\n%s", msgs)
		}
		var list lsp.PendingList
		if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{"runId": runID}}, &list); err != nil || len(list.Runs) != 1 {
			t.Errorf("pendingChanges = %+v, %v; want notes.txt still pending", list, err)
		}
	})
	t.Run("a new file and a change", func(t *testing.T) {
		f := reviewFixture(t, []agenttest.Turn{editCall(), write, agenttest.TextTurn("Fixed, with a note.")}, noOps)
		runID := f.start(t, "catbuddy.fix", f.fixArgs())
		f.awaitEnd(t, runID)
		edits := f.ed.AppliedEdits()
		if len(edits) != 1 {
			t.Fatalf("%d applyEdits, want the one review", len(edits))
		}
		for _, dc := range edits[0].Edit.DocumentChanges {
			if _, ok := dc.(*protocol.TextDocumentEdit); !ok {
				t.Errorf("the review holds %T, which this client cannot apply", dc)
			}
		}
		if got := f.ed.Text(f.uri); !strings.Contains(got, "return a + b") {
			t.Errorf("the accepted change did not land:\n%s", got)
		}
		if _, err := os.Stat(filepath.Join(f.dir, "notes.txt")); !os.IsNotExist(err) {
			t.Errorf("notes.txt was created without the user's yes: %v", err)
		}
	})
}
