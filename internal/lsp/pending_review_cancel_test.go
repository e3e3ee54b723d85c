package lsp_test

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// A user who walks away from the end-of-turn review (eglot's C-g sends
// no answer) and then cancels the run: the review is withdrawn at once,
// the run ends, its set stays pending, and the user is told how to keep
// it. questionTimeout is left at its default (15 minutes): only the
// cancel can end the review within the test.

// cancelledReview starts a fix whose review the editor never answers and
// waits until the review is out.
func cancelledReview(t *testing.T) (*runFixture, string) {
	t.Helper()
	f := newRunFixtureWith(t, agenttest.Script{Turns: []agenttest.Turn{editCall(), agenttest.TextTurn("Fixed.")}}, nil)
	f.ed.Ignore(protocol.MethodWorkspaceApplyEdit)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	f.ed.Await("the end-of-turn review", func() bool { return len(f.ed.AppliedEdits()) == 1 })
	return f, runID
}

func TestPendingReviewCancelKeepsTheSetPending(t *testing.T) {
	for _, via := range []string{"catbuddy.cancel", "catbuddy.cancel all", "window/workDoneProgress/cancel"} {
		t.Run(via, func(t *testing.T) {
			f, runID := cancelledReview(t)
			switch via {
			case "window/workDoneProgress/cancel":
				f.ed.Notify(protocol.MethodWindowWorkDoneProgressCancel, map[string]any{"token": runToken(t, f)})
				f.awaitEnd(t, runID)
			default:
				arg := map[string]any{"runId": runID}
				if via == "catbuddy.cancel all" {
					arg = map[string]any{} // the README's catbuddy-cancel-all
				}
				var res struct {
					Cancelled int `json:"cancelled"`
				}
				if err := f.ed.ExecuteCommand("catbuddy.cancel", []any{arg}, &res); err != nil || res.Cancelled != 1 {
					t.Fatalf("catbuddy.cancel = %+v, %v; want 1 cancelled", res, err)
				}
				// The answer comes after the run's end: no waiting here.
				if !slices.ContainsFunc(f.events(runID), func(ev runEvent) bool { return ev.Kind == "end" }) {
					t.Fatalf("catbuddy.cancel answered before the run ended; events %+v", f.events(runID))
				}
			}
			// $/cancelRequest is written as the review's call returns,
			// beside the run's end: it may be read after the answer.
			f.ed.Await("the review withdrawn", func() bool {
				return slices.Equal(f.ed.Withdrawn(), []string{protocol.MethodWorkspaceApplyEdit})
			})
			checkStillPending(t, f, runID)
			msgs := strings.Join(f.messages(), "\n")
			for _, want := range []string{"stay pending", "cb-ls changes --keep " + runID} {
				if !strings.Contains(msgs, want) {
					t.Errorf("the user was not told where the changes went (%q); messages:\n%s", want, msgs)
				}
			}
			if strings.Contains(msgs, "discarded") {
				t.Errorf("a cancelled review is said to discard; messages:\n%s", msgs)
			}
		})
	}
}

// An editor that answers the withdrawn review after all (applied:true,
// its buffer unchanged) changes nothing: the answer is dropped, the set
// stays pending, and no second edit is sent.
func TestPendingReviewCancelIgnoresALateAnswer(t *testing.T) {
	f := newRunFixtureWith(t, agenttest.Script{Turns: []agenttest.Turn{editCall(), agenttest.TextTurn("Fixed.")}}, nil)
	release := make(chan struct{})
	f.ed.SetApplyEdit(fake.Delay(release, fake.Lie))
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	f.ed.Await("the end-of-turn review", func() bool { return len(f.ed.AppliedEdits()) == 1 })
	if err := f.ed.ExecuteCommand("catbuddy.cancel", []any{map[string]any{"runId": runID}}, nil); err != nil {
		t.Fatalf("catbuddy.cancel: %v", err)
	}
	if !slices.ContainsFunc(f.events(runID), func(ev runEvent) bool { return ev.Kind == "end" }) {
		t.Fatalf("catbuddy.cancel answered before the run ended; events %+v", f.events(runID))
	}
	close(release)
	// The late answer is written before the next request, and the
	// server reads in order: once listRuns answers, it has been handled.
	checkStillPending(t, f, runID)
	if n := len(f.ed.AppliedEdits()); n != 1 {
		t.Errorf("%d applyEdits, want only the withdrawn review", n)
	}
}

// checkStillPending checks that runID ended, changed nothing and still
// has its one change pending.
func checkStillPending(t *testing.T, f *runFixture, runID string) {
	t.Helper()
	if got := f.ed.Text(f.uri); got != calcGo {
		t.Errorf("the cancelled review changed the buffer:\n%s", got)
	}
	runs := listRuns(t, f.ed)
	i := slices.IndexFunc(runs, func(r runInfo) bool { return r.RunID == runID })
	if i < 0 || runs[i].Outcome == "running" || runs[i].Pending != 1 {
		t.Errorf("listRuns = %+v; want %s ended with 1 change pending", runs, runID)
	}
	var list lsp.PendingList
	if err := f.ed.ExecuteCommand(lsp.CmdPendingChanges, []any{map[string]any{"runId": runID}}, &list); err != nil ||
		len(list.Runs) != 1 || len(list.Runs[0].Files) != 1 || list.Runs[0].Files[0].Path != "calc.go" {
		t.Errorf("pendingChanges = %+v, %v; want calc.go still pending", list, err)
	}
}
