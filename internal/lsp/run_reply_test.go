package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/session"
)

// These tests drive catbuddy.reply and catbuddy.listRuns through the fake
// editor, with the real agent loop and a scripted model over HTTP.

func readCall() agenttest.Turn {
	return agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"}))
}

// turnEvent is a start or end runEvent with the fields replies add.
type turnEvent struct {
	Kind    string `json:"kind"`
	RunID   string `json:"runId"`
	Turn    int    `json:"turn"`
	Input   string `json:"input"`
	Outcome string `json:"outcome"`
	Answer  string `json:"answer"`
}

func (f *runFixture) turnEvents(runID, kind string) []turnEvent {
	var out []turnEvent
	for _, raw := range f.ed.Notifications("catbuddy/runEvent") {
		var ev turnEvent
		if json.Unmarshal(raw, &ev) == nil && ev.RunID == runID && ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// awaitTurnEnd waits for the run's n-th end event (1-based).
func (f *runFixture) awaitTurnEnd(t *testing.T, runID string, n int) turnEvent {
	t.Helper()
	f.ed.Await("run "+runID+" to end its turn", func() bool { return len(f.turnEvents(runID, "end")) >= n })
	return f.turnEvents(runID, "end")[n-1]
}

func (f *runFixture) reply(t *testing.T, runID, input string) {
	t.Helper()
	var res struct {
		RunID string `json:"runId"`
		Turn  int    `json:"turn"`
	}
	if err := f.ed.ExecuteCommand("catbuddy.reply", []any{map[string]string{"runId": runID, "input": input}}, &res); err != nil {
		t.Fatalf("catbuddy.reply: %v", err)
	}
	if res.RunID != runID || res.Turn < 2 {
		t.Fatalf("catbuddy.reply answered %+v, want run %s and a turn ≥ 2", res, runID)
	}
}

// historyOf returns a request's conversation as role:text lines, tool
// calls as "→ name" and results as "← name-id: first line".
func historyOf(r agenttest.Request) []string {
	var out []string
	for _, m := range r.Messages() {
		if m.Text != "" {
			out = append(out, m.Role+": "+firstLineOf(m.Text))
		}
		for _, c := range m.ToolCalls {
			out = append(out, "→ "+c.Name+" "+c.RawArgs)
		}
		for _, res := range m.ToolResults {
			out = append(out, "← "+res.CallID+": "+firstLineOf(res.Content))
		}
	}
	return out
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func TestReplyContinuesTheConversation(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		readCall(),
		agenttest.TextTurn("Add subtracts."),
		readCall(), // the reply: an unchanged re-read
		agenttest.TextTurn("Keep the signature; add AddInts."),
	}}, nil)
	runID := f.start(t, "catbuddy.run", map[string]any{"command": "explain", "uri": f.uri})
	if end := f.awaitTurnEnd(t, runID, 1); end.Outcome != "done" || end.Answer != "Add subtracts." {
		t.Fatalf("first turn ended %+v", end)
	}
	f.reply(t, runID, "no, keep the old signature and add an overload")
	end := f.awaitTurnEnd(t, runID, 2)
	if end.Outcome != "done" || end.Answer != "Keep the signature; add AddInts." {
		t.Fatalf("reply ended %+v", end)
	}

	reqs := f.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model got %d requests, want 4", len(reqs))
	}
	// The reply's first request holds the whole first exchange, then the reply.
	first, reply := historyOf(reqs[1]), historyOf(reqs[2])
	if len(reply) != len(first)+2 || !slices.Equal(reply[:len(first)], first) {
		t.Fatalf("the reply's request does not continue the first exchange:\nfirst: %q\nreply: %q", first, reply)
	}
	if got := reply[len(first):]; got[0] != "assistant: Add subtracts." || got[1] != "user: no, keep the old signature and add an overload" {
		t.Errorf("after the history: %q, want the first answer, then the reply", got)
	}
	if !slices.ContainsFunc(first, func(s string) bool { return strings.HasPrefix(s, "→ read_file") }) ||
		!slices.ContainsFunc(first, func(s string) bool { return strings.HasPrefix(s, "← ") && strings.Contains(s, "package calc") }) {
		t.Errorf("the history lacks the tool call and its result: %q", first)
	}
	if reqs[2].System() == "" {
		t.Errorf("the reply's request has no system prompt")
	}
	// The FileStates carried over: the unchanged re-read is deduplicated.
	if got := lastToolResult(t, reqs[3]).Content; !strings.Contains(got, "unchanged") {
		t.Errorf("re-read after the reply = %q, want the unchanged notice", got)
	}

	// The transcript is offered once, after the first turn, not after every reply.
	if n := strings.Count(f.ed.Received(), `"window/showDocument"`); n != 1 {
		t.Errorf("window/showDocument sent %d times over two turns, want once (after the first)", n)
	}
	// Events go on under the same id, a start marking the new turn.
	starts := f.turnEvents(runID, "start")
	if len(starts) != 2 || starts[1].Turn != 2 || starts[1].Input != "no, keep the old signature and add an overload" {
		t.Errorf("start events = %+v, want a second one for turn 2 with the input", starts)
	}
	// The transcript continues in the same file.
	var tr struct {
		URI string `json:"uri"`
	}
	if err := f.ed.ExecuteCommand("catbuddy.transcript", []any{map[string]string{"runId": runID}}, &tr); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(pathOf(t, uri.URI(tr.URI)))
	if !strings.Contains(string(text), "Add subtracts.") || !strings.Contains(string(text), "add AddInts") {
		t.Errorf("the transcript does not hold both turns:\n%s", text)
	}
}

// A reply sent the moment the first turn's end arrives starts a turn that
// the first one's goroutine, still finishing, must leave alone: the new
// turn stays running (listed so, a further reply refused) until it ends.
func TestReplyRightAfterTheEndStaysRunning(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.TextTurn("Add subtracts."),
		{Text: "thinking", Hang: true, After: 1},
	}}, nil)
	runID := f.start(t, "catbuddy.run", map[string]any{"command": "explain", "uri": f.uri})
	f.awaitTurnEnd(t, runID, 1)
	f.reply(t, runID, "and Sub?")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := f.model.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if list := listRuns(t, f.ed); len(list) != 1 || list[0].Outcome != "running" || list[0].Turns != 1 {
		t.Errorf("during the reply listRuns = %+v, want the run running (1 turn ended)", list)
	}
	if err := f.ed.ExecuteCommand("catbuddy.reply", []any{map[string]string{"runId": runID, "input": "more"}}, nil); err == nil || !strings.Contains(err.Error(), "still going") {
		t.Errorf("a second reply during the first: err = %v, want still going", err)
	}
	f.ed.ExecuteCommand("catbuddy.cancel", []any{map[string]string{"runId": runID}}, nil)
	if end := f.awaitTurnEnd(t, runID, 2); end.Outcome != "cancelled" {
		t.Errorf("the reply ended %+v, want cancelled", end)
	}
}

func TestReplyWhileRunningRefused(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		{Text: "thinking", Hang: true, After: 1},
	}}, nil)
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := f.model.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	err := f.ed.ExecuteCommand("catbuddy.reply", []any{map[string]string{"runId": runID, "input": "more"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "still going") || !strings.Contains(err.Error(), "catbuddy.cancel") {
		t.Errorf("reply while running: err = %v, want a refusal saying how to cancel", err)
	}
	f.ed.ExecuteCommand("catbuddy.cancel", []any{map[string]string{"runId": runID}}, nil)
	f.awaitTurnEnd(t, runID, 1)
	if n := len(f.model.Requests()); n != 1 {
		t.Errorf("the refused reply reached the model (%d requests)", n)
	}
}

func TestReplyRefusals(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{}, nil)
	for name, tc := range map[string]struct {
		args any
		want string
	}{
		"no argument":  {nil, "expected one argument"},
		"no run id":    {map[string]string{"input": "x"}, "missing runId"},
		"no input":     {map[string]string{"runId": "rabc", "input": "  "}, "missing input"},
		"bad run id":   {map[string]string{"runId": "../x", "input": "x"}, "invalid run id"},
		"unknown run":  {map[string]string{"runId": "rnothere", "input": "x"}, `unknown run "rnothere"`},
		"not a object": {"text", "invalid argument"},
	} {
		t.Run(name, func(t *testing.T) {
			var args []any
			if tc.args != nil {
				args = []any{tc.args}
			}
			err := f.ed.ExecuteCommand("catbuddy.reply", args, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// runInfo is a catbuddy.listRuns entry as a client decodes it.
type runInfo struct {
	RunID   string   `json:"runId"`
	Command string   `json:"command"`
	Title   string   `json:"title"`
	Outcome string   `json:"outcome"`
	Turns   int      `json:"turns"`
	Files   []string `json:"files"`
	URI     string   `json:"transcriptUri"`
	Pending int      `json:"pending"`
	Tokens  struct {
		InputTokens  int64 `json:"inputTokens"`
		OutputTokens int64 `json:"outputTokens"`
	} `json:"tokens"`
}

func listRuns(t *testing.T, ed *fake.Editor) []runInfo {
	t.Helper()
	var list []runInfo
	if err := ed.ExecuteCommand("catbuddy.listRuns", nil, &list); err != nil {
		t.Fatalf("catbuddy.listRuns: %v", err)
	}
	return list
}

// After the server restarts, a reply loads the conversation from the
// session file; the FileStates start empty, so a re-read gets content.
func TestReplyAfterRestart(t *testing.T) {
	f := newRunFixture(t, agenttest.Script{Turns: []agenttest.Turn{
		readCall(),
		editCall(),
		agenttest.TextTurn("Fixed Add."),
		agenttest.TextTurn("An unrelated answer."),
		readCall(), // after the restart
		agenttest.TextTurn("It adds now."),
	}}, nil)
	runID := f.start(t, "catbuddy.fix", mergeArgs(f.fixArgs(), map[string]any{"input": "fix Add\nit subtracts"}))
	if end := f.awaitTurnEnd(t, runID, 1); end.Outcome != "done" {
		t.Fatalf("first turn ended %+v", end)
	}
	older := f.start(t, "catbuddy.run", map[string]any{"command": "ask", "input": "unrelated"})
	f.awaitTurnEnd(t, older, 1)
	before := f.model.Requests()[2]

	// The session file sits next to the transcript, without the key, and
	// out of the tools' reach.
	sessions, err := session.DirOf(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(sessions, "*-"+runID+"-fix.*"))
	if len(matches) != 2 {
		t.Fatalf("session files for %s: %v, want the .jsonl and the .md", runID, matches)
	}
	for _, m := range matches {
		if data, _ := os.ReadFile(m); strings.Contains(string(data), testKey) {
			t.Errorf("%s holds the API key", m)
		}
	}
	if out, isErr := f.ed.RunTool("read_file", map[string]any{"path": matches[0]}); !isErr {
		t.Errorf("read_file reached a session file: %.200s", out)
	}
	if err := f.ed.Shutdown(); err != nil {
		t.Fatal(err)
	}
	f.ed.Exit()

	// A new server on the same folder.
	f.ed = fake.New(t, fake.Options{Folders: []string{f.dir}, InitializationOptions: map[string]any{
		"provider": "openai", "baseUrl": f.model.URL(), "model": "scripted", "apiKey": testKey, "maxSteps": 5,
	}})
	f.uri = f.ed.OpenFile(f.calc)

	list := listRuns(t, f.ed)
	if len(list) != 2 || list[0].RunID != older || list[1].RunID != runID {
		t.Fatalf("listRuns = %+v, want %s then %s (most recent first)", list, older, runID)
	}
	got := list[1]
	if got.Command != "fix" || got.Title != "fix Add" || got.Outcome != "done" || got.Turns != 1 ||
		!slices.Equal(got.Files, []string{"calc.go"}) || got.Tokens.InputTokens == 0 || got.Tokens.OutputTokens == 0 {
		t.Errorf("listed run = %+v, want fix/\"fix Add\"/done, 1 turn, calc.go changed, tokens counted", got)
	}
	if !strings.HasSuffix(got.URI, "-"+runID+"-fix.md") {
		t.Errorf("listed transcript = %q, want the run's .md", got.URI)
	}
	if list[0].Outcome != "done" || list[0].Title != "unrelated" || len(list[0].Files) != 0 {
		t.Errorf("the question run is listed as %+v", list[0])
	}

	f.reply(t, runID, "does it add now?")
	if end := f.awaitTurnEnd(t, runID, 1); end.Answer != "It adds now." {
		t.Fatalf("reply after restart ended %+v", end)
	}
	reqs := f.model.Requests()
	after := historyOf(reqs[len(reqs)-2])
	prev := historyOf(before)
	if len(after) != len(prev)+2 || !slices.Equal(after[:len(prev)], prev) ||
		after[len(prev)] != "assistant: Fixed Add." || after[len(prev)+1] != "user: does it add now?" {
		t.Errorf("the reply after a restart lacks the history:\nbefore: %q\nafter:  %q", prev, after)
	}
	// Fresh FileStates: the re-read returns the content, which may have changed.
	if got := lastToolResult(t, reqs[len(reqs)-1]).Content; strings.Contains(got, "unchanged") || !strings.Contains(got, "package calc") {
		t.Errorf("re-read after the restart = %q, want the content", got)
	}
	list = listRuns(t, f.ed)
	if list[0].RunID != runID || list[0].Turns != 2 {
		t.Errorf("after the reply, listRuns = %+v, want %s first with 2 turns", list, runID)
	}
}
