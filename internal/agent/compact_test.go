package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
)

// fileOf returns a text file of about size bytes whose last line names it.
func fileOf(name string, size int) string {
	var b strings.Builder
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s line %d: some text that fills the file to its size\n", name, i)
	}
	fmt.Fprintf(&b, "END OF %s\n", name)
	return b.String()
}

// readPlan answers tool-offering requests by reading paths in order and
// then finishing; a request without tools is a compaction's summary
// request and gets a summary.
type readPlan struct {
	paths []string

	mu        sync.Mutex
	next      int
	summaries int
}

func (p *readPlan) turn(n int, req agenttest.Request) agenttest.Turn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(req.ToolNames()) == 0 {
		p.summaries++
		return agenttest.TextTurn(fmt.Sprintf("Summary %d: I read files to find the bug; nothing changed yet.", p.summaries))
	}
	if p.next == len(p.paths) {
		return agenttest.TextTurn("done")
	}
	path := p.paths[p.next]
	p.next++
	return agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": path}))
}

// checkPairs fails unless every tool result in req follows the call it
// answers and every call has its result, as both wire formats require.
func checkPairs(t *testing.T, i int, req agenttest.Request) {
	t.Helper()
	open := map[string]bool{}
	for _, m := range req.Messages() {
		if m.Role == "assistant" {
			for id := range open {
				t.Errorf("request %d: call %s has no result before the next assistant turn", i, id)
			}
			open = map[string]bool{}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		}
		for _, r := range m.ToolResults {
			if !open[r.CallID] {
				t.Errorf("request %d: result for %s without its call", i, r.CallID)
			}
			delete(open, r.CallID)
		}
	}
}

// runLong runs a plan of reads against a model whose window is window
// tokens (the client's setting and the server's limit alike).
func runLong(t *testing.T, m mode, files map[string]string, paths []string, window int) (*agenttest.Server, *readPlan, *events, Outcome) {
	t.Helper()
	_, r := project(t, files)
	plan := &readPlan{paths: paths}
	srv := agenttest.NewServer(t, agenttest.Script{ContextWindow: window})
	srv.Next = plan.turn
	r.Config = m.config(srv)
	r.Config.ContextWindow = window
	r.Config.MaxSteps = len(paths) + 2
	var ev events
	out, err := r.Run(t.Context(), Task{Command: "ask", Input: "Find the bug."}, ev.emit)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.Answer != "done" {
		t.Fatalf("answer %q, want done", out.Answer)
	}
	for i, req := range srv.Requests() {
		if req.Index < 0 || agenttest.Tokens(len(req.Raw)) > int64(window) {
			t.Errorf("request %d: %d tokens, over the %d-token window", i, agenttest.Tokens(len(req.Raw)), window)
		}
		checkPairs(t, i, req)
	}
	return srv, plan, &ev, out
}

func (e *events) texts(kind EventKind) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.all {
		if ev.Kind == kind {
			out = append(out, ev.Text)
		}
	}
	return out
}

// lastResult returns the last tool result the model was sent.
func lastResult(t *testing.T, srv *agenttest.Server) string {
	t.Helper()
	reqs := srv.Requests()
	res := reqs[len(reqs)-1].ToolResults()
	if len(res) == 0 {
		t.Fatal("the last request has no tool results")
	}
	return res[len(res)-1].Content
}

// trimWindow returns a context window in which reading files like
// files' a.txt one after another needs trimming and trimming is enough.
// The sizes come from a probe run's requests, so a longer system prompt
// or a new tool does not break the test: the last request trimmed (system
// prompt, tools, task, one whole output and the others trimmed) and the
// same request untrimmed are measured, and compactAt of the window lies
// halfway between them. The agent's own estimate (bytes per token
// calibrated from the provider's counts) may differ from the server's
// count by a few percent of the request; the margin either way is half
// the outputs trimming removes, whatever the prompt's size, and the test
// refuses to run when that margin is not a quarter of the request.
func trimWindow(t *testing.T, m mode, files map[string]string, reads int) int {
	t.Helper()
	srv, _, _, _ := runLong(t, m, files, []string{"a.txt"}, 1<<20)
	reqs := srv.Requests()
	base := agenttest.Tokens(len(reqs[0].Raw))
	turn := agenttest.Tokens(len(reqs[1].Raw)) - base
	whole := lastResult(t, srv)
	trimmed, ok := trimOutput(whole)
	if !ok {
		t.Fatalf("a %d-byte output is not trimmed; the test needs larger files", len(whole))
	}
	trimmedTurn := turn - agenttest.Tokens(len(mustJSON(t, whole))) + agenttest.Tokens(len(mustJSON(t, trimmed)))
	need := base + turn + int64(reads-1)*trimmedTurn // the last request, trimmed
	all := base + int64(reads)*turn                  // the last request, had nothing been trimmed
	if margin := (all - need) / 2; margin*4 < need {
		t.Fatalf("trimming saves %d of %d tokens: too little against the system prompt (%d tokens) for a safe margin; the test needs larger or more files", all-need, all, base)
	}
	return int(float64(need+all) / 2 / compactAt)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLongRunTrimsOldOutputs(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		files := map[string]string{}
		var paths []string
		for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			files[n+".txt"] = fileOf(n, 6<<10)
			paths = append(paths, n+".txt")
		}
		paths = append(paths, "a.txt") // read again after its output was trimmed
		srv, plan, ev, _ := runLong(t, m, files, paths, trimWindow(t, m, files, len(paths)))

		if got := lastResult(t, srv); !strings.Contains(got, "END OF a") {
			t.Errorf("a.txt read again after trimming is not returned in full:\n%.300s", got)
		}
		notes := ev.texts(EventCompact)
		if len(notes) == 0 || !strings.HasPrefix(notes[0], "Trimmed ") {
			t.Errorf("compact events %q, want a trimming first", notes)
		}
		if plan.summaries != 0 {
			t.Errorf("%d summaries; trimming alone should have been enough: %q", plan.summaries, notes)
		}

	})
}

func TestLongRunCompactsWithSummary(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		files := map[string]string{}
		var paths []string
		for i := range 24 {
			n := fmt.Sprintf("f%02d", i)
			files[n+".txt"] = fileOf(n, 1500) // under trimAbove: only a summary helps
			paths = append(paths, n+".txt")
		}
		paths = append(paths, "f00.txt")
		srv, plan, ev, _ := runLong(t, m, files, paths, 8000)

		if plan.summaries == 0 {
			t.Fatal("no summary was asked for")
		}
		if got := lastResult(t, srv); !strings.Contains(got, "END OF f00") {
			t.Errorf("f00.txt read again after compaction is not returned in full:\n%.300s", got)
		}
		var summaryReq, after *agenttest.Request
		reqs := srv.Requests()
		for i := range reqs {
			if len(reqs[i].ToolNames()) == 0 && summaryReq == nil {
				summaryReq, after = &reqs[i], &reqs[i+1]
			}
		}
		if !strings.Contains(summaryReq.LastUserText(), "Write that summary now") {
			t.Errorf("summary request ends with %q", summaryReq.LastUserText())
		}
		first := after.Messages()[0]
		if first.Role != "user" || !strings.Contains(first.Text, "Find the bug.") || !strings.Contains(first.Text, "Summary 1: I read files") {
			t.Errorf("after compaction the first message is %q, want the task and the summary", first.Text)
		}
		if notes := ev.texts(EventCompact); len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "replaced by a summary") {
			t.Errorf("compact events %q do not announce the summary", notes)
		}
		var summaries []string
		for _, e := range ev.all {
			if e.Kind == EventCompact && e.Summary != "" {
				summaries = append(summaries, e.Summary)
			}
		}
		if len(summaries) == 0 || !strings.Contains(summaries[0], "Summary 1: I read files") {
			t.Errorf("no compact event carries the summary for the transcript: %q", summaries)
		}
	})
}

func TestContextLengthErrorCompactsAndRetries(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		files := map[string]string{}
		for _, n := range []string{"a", "b", "c", "d"} {
			files[n+".txt"] = fileOf(n, 5<<10)
		}
		_, r := project(t, files)
		plan := &readPlan{paths: []string{"a.txt", "b.txt", "c.txt", "d.txt"}}
		// The server's real window is far below what the client believes.
		srv := agenttest.NewServer(t, agenttest.Script{ContextWindow: 6000})
		srv.Next = plan.turn
		r.Config = m.config(srv)
		r.Config.ContextWindow = 200_000
		var ev events
		out, err := r.Run(t.Context(), Task{Command: "ask", Input: "Find the bug."}, ev.emit)
		if err != nil {
			t.Fatalf("run failed instead of compacting: %v", err)
		}
		if out.Answer != "done" {
			t.Errorf("answer %q", out.Answer)
		}
		refused := 0
		for i, req := range srv.Requests() {
			if req.Index < 0 {
				refused++
			}
			checkPairs(t, i, req)
		}
		if refused == 0 || len(ev.texts(EventCompact)) == 0 {
			t.Errorf("%d refused requests, compact events %q: want a refusal followed by compaction", refused, ev.texts(EventCompact))
		}
	})
}

func TestContextWindowTable(t *testing.T) {
	for model, want := range map[string]int{
		"claude-sonnet-4-5":                      200_000,
		"gpt-4.1":                                1_047_576,
		"gpt-4o-mini":                            128_000,
		"qwen2.5-coder:7b":                       32_768,
		"openrouter/anthropic/claude-3.5-sonnet": 200_000,
		"something-new":                          defaultContextWindow,
	} {
		if got := ContextWindow(config.Config{Model: model}); got != want {
			t.Errorf("ContextWindow(%s) = %d, want %d", model, got, want)
		}
	}
	if got := ContextWindow(config.Config{Model: "gpt-4.1", ContextWindow: 9000}); got != 9000 {
		t.Errorf("the contextWindow setting does not win: %d", got)
	}
	if _, err := config.LoadConfig(t.TempDir(), config.Config{ContextWindow: 100}); err == nil || !strings.Contains(err.Error(), "contextWindow 100") {
		t.Errorf("a contextWindow of 100 tokens: %v, want an error naming it", err)
	}
	cfg, err := config.ParseSettings([]byte(`{"catbuddy": {"contextWindow": 65536}}`))
	if err != nil || cfg.ContextWindow != 65536 {
		t.Errorf("ParseSettings contextWindow: %d, %v", cfg.ContextWindow, err)
	}
}
