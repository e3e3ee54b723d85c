package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/filestate"
)

func TestParallelCallsAndResultsWithIDs(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		tt := newTestTools(t)
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
			{Text: "Let me look.", ToolCalls: []agenttest.ToolCall{
				agenttest.Call("echo", map[string]string{"text": "a"}),
				agenttest.Call("write", map[string]string{"text": "f.go"}),
				agenttest.Call("echo", map[string]string{"text": "ü — split across chunks"}),
			}, ChunkSize: 3},
			agenttest.TextTurn("All done."),
		}})
		var ev events
		r := &Runner{Registry: tt.reg, Config: m.config(srv), WorkRoot: func() string { return "/work/proj" }}
		out, err := r.Run(t.Context(), Task{Command: "ask", Input: "do it"}, ev.emit)
		if err != nil {
			t.Fatal(err)
		}
		if out.Answer != "All done." || out.Steps != 2 {
			t.Errorf("outcome: answer %q steps %d", out.Answer, out.Steps)
		}
		// Calls run in the model's order (the write is not read-only, so
		// the reads around it do not overtake it).
		if diff := cmp.Diff([]string{"echo a", "write f.go", "echo ü — split across chunks"}, tt.ran()); diff != "" {
			t.Errorf("execution order (-want +got):\n%s", diff)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want 2", len(reqs))
		}
		if diff := cmp.Diff([]string{"ctx", "echo", "fail", "slow", "together", "write"}, reqs[0].ToolNames()); diff != "" {
			t.Errorf("tools offered (-want +got):\n%s", diff)
		}
		if !strings.Contains(reqs[0].System(), "/work/proj") || !strings.Contains(reqs[0].System(), "before you edit it") {
			t.Errorf("system prompt lacks the workspace or the edit rules:\n%s", reqs[0].System())
		}
		if reqs[0].LastUserText() == "" || !strings.Contains(reqs[0].LastUserText(), "do it") {
			t.Errorf("first user message %q lacks the input", reqs[0].LastUserText())
		}
		want := []agenttest.ToolResult{
			{CallID: m.callID(0, 0), Content: "echo: a"},
			{CallID: m.callID(0, 1), Content: "wrote f.go"},
			{CallID: m.callID(0, 2), Content: "echo: ü — split across chunks"},
		}
		if diff := cmp.Diff(want, reqs[1].ToolResults()); diff != "" {
			t.Errorf("results sent back (-want +got):\n%s", diff)
		}
		if reqs[0].Stream() != m.stream || reqs[0].Model() != "test-model" || reqs[0].APIKey() != testKey {
			t.Errorf("request: stream %v model %q key sent %v", reqs[0].Stream(), reqs[0].Model(), reqs[0].APIKey() == testKey)
		}
		wantKinds := []EventKind{EventStart, EventUser, EventStep, EventText, EventUsage,
			EventToolCall, EventToolResult, EventToolCall, EventToolResult, EventToolCall, EventToolResult,
			EventStep, EventText, EventUsage}
		if diff := cmp.Diff(wantKinds, ev.kinds()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		for _, e := range ev.all {
			if e.Kind == EventToolResult && e.Tool == "write" && (len(e.Edits) != 1 || e.Edits[0].Added != 1) {
				t.Errorf("write's result event lacks its edit info: %+v", e)
			}
		}
		if out.Usage.InputTokens == 0 || out.Usage.OutputTokens == 0 {
			t.Errorf("usage not recorded: %+v", out.Usage)
		}
		// The events carry what the transcript says: the run's settings
		// (never the key), the request as sent, the answer.
		start, user := ev.all[0], ev.all[1]
		if start.Run == nil || start.Run.Workspace != "/work/proj" || start.Run.Model != "test-model" || start.Run.Provider != m.provider {
			t.Errorf("start event %+v", start.Run)
		}
		if !strings.Contains(user.Text, "do it") {
			t.Errorf("user event %q lacks the request", user.Text)
		}
		if texts := ev.texts(EventText); !strings.Contains(strings.Join(texts, ""), "All done.") {
			t.Errorf("text events %q lack the answer", texts)
		}
	})
}

func TestUsageIsSummedPerRun(t *testing.T) {
	tt := newTestTools(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		{ToolCalls: []agenttest.ToolCall{agenttest.Call("echo", map[string]string{"text": "x"})}, InputTokens: 100, OutputTokens: 7},
		{Text: "ok", InputTokens: 150, OutputTokens: 3},
	}})
	out, err := (&Runner{Registry: tt.reg, Config: modes[0].config(srv)}).Run(t.Context(), Task{Input: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Usage != (Usage{InputTokens: 250, OutputTokens: 10}) {
		t.Errorf("usage %+v, want 250 in / 10 out", out.Usage)
	}
}

func TestUnknownToolAndMalformedArgumentsGoBackToTheModel(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		tt := newTestTools(t)
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
			{ToolCalls: []agenttest.ToolCall{
				{Name: "no_such_tool", Args: args(map[string]int{"x": 1})},
				{Name: "echo", RawArgs: `{"text": "unterminated`},
			}},
			agenttest.TextTurn("Sorry."),
		}})
		out, err := (&Runner{Registry: tt.reg, Config: m.config(srv)}).Run(t.Context(), Task{Input: "go"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Answer != "Sorry." {
			t.Errorf("answer %q", out.Answer)
		}
		res := srv.Requests()[1].ToolResults()
		if len(res) != 2 {
			t.Fatalf("results %+v", res)
		}
		if !strings.Contains(res[0].Content, `unknown tool "no_such_tool"`) || res[0].CallID != m.callID(0, 0) {
			t.Errorf("unknown tool result: %+v", res[0])
		}
		if !strings.Contains(res[1].Content, "invalid arguments for echo") || res[1].CallID != m.callID(0, 1) {
			t.Errorf("malformed arguments result: %+v", res[1])
		}
		if m.provider == "anthropic" && (!res[0].IsError || !res[1].IsError) {
			t.Errorf("anthropic results not flagged is_error: %+v", res)
		}
		if got := tt.ran(); len(got) != 0 {
			t.Errorf("tools ran with bad calls: %v", got)
		}
	})
}

func TestReadOnlyCallsRunConcurrently(t *testing.T) {
	tt := newTestTools(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("together", map[string]string{"text": "1"}), agenttest.Call("together", map[string]string{"text": "2"})),
		agenttest.TextTurn("ok"),
	}})
	if _, err := (&Runner{Registry: tt.reg, Config: modes[0].config(srv)}).Run(t.Context(), Task{Input: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests()[1].ToolResults() {
		if r.Content != "met" {
			t.Errorf("read-only calls of one turn did not run concurrently: %+v", srv.Requests()[1].ToolResults())
		}
	}
}

func TestRepeatedFailingCallGetsAHint(t *testing.T) {
	tt := newTestTools(t)
	same := agenttest.Call("fail", map[string]string{"text": "x"})
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(same), agenttest.CallTurn(same), agenttest.CallTurn(same), agenttest.TextTurn("I give up."),
	}})
	out, err := (&Runner{Registry: tt.reg, Config: modes[0].config(srv)}).Run(t.Context(), Task{Input: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := tt.failRuns.Load(); n != 2 {
		t.Errorf("the failing call ran %d times, want 2 (then a hint)", n)
	}
	res := srv.Requests()[3].ToolResults()
	if last := res[len(res)-1].Content; !strings.Contains(last, "already failed 2 times") {
		t.Errorf("third identical call got %q, want the hint", last)
	}
	if out.Answer != "I give up." {
		t.Errorf("answer %q", out.Answer)
	}
}

func TestStepLimitGetsAFinalSummary(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		tt := newTestTools(t)
		call := func(s string) agenttest.Turn {
			return agenttest.CallTurn(agenttest.Call("echo", map[string]string{"text": s}))
		}
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
			call("1"), call("2"), agenttest.TextTurn("Summary: looked twice."),
		}})
		cfg := m.config(srv)
		cfg.MaxSteps = 2
		out, err := (&Runner{Registry: tt.reg, Config: cfg}).Run(t.Context(), Task{Input: "x"}, nil)
		if !errors.Is(err, ErrStepLimit) {
			t.Fatalf("err %v, want ErrStepLimit", err)
		}
		if out.Answer != "Summary: looked twice." || out.Steps != 3 {
			t.Errorf("outcome: %q after %d steps", out.Answer, out.Steps)
		}
		last := srv.Requests()[2]
		if names := last.ToolNames(); len(names) != 0 {
			t.Errorf("final turn offered tools %v", names)
		}
		if !strings.Contains(last.LastUserText(), "step limit") || !strings.Contains(last.LastUserText(), "echo: 2") {
			t.Errorf("final turn's user message %q lacks the limit notice or the last result", last.LastUserText())
		}
	})
}

func TestOneFileStatesPerRun(t *testing.T) {
	tt := newTestTools(t)
	turns := []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("ctx", map[string]string{"text": "1"})),
		agenttest.CallTurn(agenttest.Call("ctx", map[string]string{"text": "2"})),
		agenttest.TextTurn("ok"),
	}
	srv := agenttest.NewServer(t, agenttest.Script{Turns: append(append([]agenttest.Turn(nil), turns...), turns...)})
	r := &Runner{Registry: tt.reg, Config: modes[0].config(srv)}
	if _, err := r.Run(t.Context(), Task{Input: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	a, b := filestate.FromContext(<-tt.ctxs), filestate.FromContext(<-tt.ctxs)
	if a == nil || a != b {
		t.Errorf("calls of one run saw FileStates %p and %p, want one", a, b)
	}
	mine := filestate.New()
	if _, err := r.Run(filestate.NewContext(t.Context(), mine), Task{Input: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	c := filestate.FromContext(<-tt.ctxs)
	<-tt.ctxs
	if c != mine {
		t.Errorf("the caller's FileStates was not used")
	}
	if c == a {
		t.Errorf("two runs shared FileStates")
	}
}

func TestExplainOffersOnlyReadOnlyTools(t *testing.T) {
	tt := newTestTools(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("It adds.")}})
	task := Task{Command: "explain", Path: "/p/calc.go", Language: "go", Content: []byte("package calc\n\nfunc Add(a, b int) int { return a - b }\n"),
		StartLine: 3, EndLine: 3, Selection: "func Add(a, b int) int { return a - b }"}
	out, err := (&Runner{Registry: tt.reg, Config: modes[2].config(srv), WorkRoot: func() string { return "/p" }}).Run(t.Context(), task, nil)
	if err != nil || out.Answer != "It adds." {
		t.Fatalf("%q, %v", out.Answer, err)
	}
	req := srv.Requests()[0]
	if diff := cmp.Diff([]string{"echo", "together"}, req.ToolNames()); diff != "" {
		t.Errorf("explain offered (-want +got):\n%s", diff)
	}
	if !strings.Contains(req.System(), "Answer only") {
		t.Errorf("system prompt for explain lacks the answer-only rule")
	}
	if u := req.LastUserText(); !strings.Contains(u, "calc.go") || !strings.Contains(u, "return a - b") {
		t.Errorf("explain prompt lacks the file or the code:\n%s", u)
	}
}

func TestUnknownCommand(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{})
	_, err := (&Runner{Config: modes[0].config(srv)}).Run(t.Context(), Task{Command: "nope"}, nil)
	if !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("err %v, want ErrUnknownCommand", err)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("the model was called for an unknown command")
	}
}

func TestCancelMidStream(t *testing.T) {
	for _, m := range modes {
		if !m.stream {
			continue
		}
		t.Run(m.String(), func(t *testing.T) {
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "one two three four five six", Hang: true, After: 5}}})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got string
			_, err := (&Runner{Config: m.config(srv)}).Run(ctx, Task{Input: "x"}, func(ev Event) {
				if ev.Kind == EventText {
					got += ev.Text
					cancel() // the user cancels as soon as text appears
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			if got == "" {
				t.Errorf("no text streamed before the hang")
			}
		})
	}
}

func TestCancelStopsTheRunningTool(t *testing.T) {
	tt := newTestTools(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("slow", map[string]string{"text": "x"}), agenttest.Call("echo", map[string]string{"text": "after"})),
	}})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-tt.slowStart
		cancel()
	}()
	out, err := (&Runner{Registry: tt.reg, Config: modes[0].config(srv)}).Run(ctx, Task{Input: "x"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if toolErr := <-tt.slowCancel; !errors.Is(toolErr, context.Canceled) {
		t.Errorf("the tool saw %v", toolErr)
	}
	if got := tt.ran(); len(got) != 0 {
		t.Errorf("calls after the cancelled one ran: %v", got)
	}
	if out.Steps != 1 || len(out.Messages) == 0 {
		t.Errorf("outcome after cancel: steps %d, %d messages; want the conversation as far as it got", out.Steps, len(out.Messages))
	}
}

func TestKeyNeverInLogsErrorsOrTranscript(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)

	tt := newTestTools(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		{Text: "cut", Cut: true}, // logged retry
		agenttest.CallTurn(agenttest.Call("echo", map[string]string{"text": "x"})),
		{Status: 401, Error: "Incorrect API key provided: sk-test-******************cdef"},
	}})
	// The transcript is rendered from the events: none may carry the key.
	var ev events
	_, err := (&Runner{Registry: tt.reg, Config: modes[0].config(srv)}).Run(t.Context(), Task{Input: "x"}, ev.emit)
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("err %v, want ErrAuth", err)
	}
	evJSON, _ := json.Marshal(ev.all)
	for name, s := range map[string]string{"logs": logs.String(), "error": err.Error(), "events": string(evJSON)} {
		if strings.Contains(s, testKey) || strings.Contains(s, "******") {
			t.Errorf("%s contains the key:\n%s", name, s)
		}
	}
	if srv.Requests()[0].APIKey() != testKey {
		t.Errorf("the key was not sent to the model server")
	}
}
