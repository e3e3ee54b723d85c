package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/session"
)

// cb-ls run stores each conversation; cb-ls run --continue replies to
// the last run (or a named one) with the whole history, as a new process.
func TestRunContinue(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.TextTurn("Fixed: Add subtracted."),
		agenttest.TextTurn("A second question's answer."),
		agenttest.TextTurn("The second run goes on."),
		agenttest.TextTurn("Yes: it adds now."),
	}})
	root := runEnv(t, srv, "openai")
	run := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := runAgent(t.Context(), append([]string{"--root", root}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("cb-ls run %q: exit %d\n%s", args, code, stderr.String())
		}
		return strings.TrimSpace(stdout.String()), stderr.String()
	}
	run("--yes", "fix Add") // the edit needs --yes: there is no terminal
	list, err := session.List([]string{root})
	if err != nil || len(list) != 1 {
		t.Fatalf("stored runs: %+v, %v", list, err)
	}
	first := list[0]
	if first.Command != "run" || first.Title != "cb-ls run" || first.TitleText() != "fix Add" || !slices.Equal(first.Files, []string{"calc.go"}) || first.Outcome != "done" {
		t.Errorf("stored run = %+v", first)
	}
	run("another question")

	// --continue: the last run, i.e. the second one.
	_, stderr := run("--continue", "and now?")
	if !strings.Contains(stderr, "continuing") {
		t.Errorf("stderr does not say which run goes on:\n%s", stderr)
	}
	reqs := srv.Requests()
	if msgs := reqs[4].Messages(); len(msgs) != 3 || !strings.Contains(msgs[0].Text, "another question") || msgs[1].Text != "A second question's answer." || msgs[2].Text != "and now?" {
		t.Errorf("--continue sent %+v, want the second run's history and the reply", msgs)
	}

	// --continue ID: the first run, tool calls and results included.
	out, _ := run("--continue", first.RunID, "does", "it", "add?")
	if out != "Yes: it adds now." {
		t.Errorf("stdout = %q", out)
	}
	msgs := srv.Requests()[5].Messages()
	prev := srv.Requests()[2].Messages()
	// The reply starts with what the user kept of the first run's
	// changes (--yes kept them all), so the model knows they landed.
	if len(msgs) != len(prev)+2 || msgs[len(prev)].Text != "Fixed: Add subtracted." ||
		msgs[len(prev)+1].Text != "[The user kept hunk 1 of calc.go (line 5: \"return a - b\" → \"return a + b\").]\n\ndoes it add?" {
		t.Fatalf("--continue %s sent %d messages (first run had %d): %+v", first.RunID, len(msgs), len(prev), msgs)
	}
	for i, m := range prev {
		if m.Role != msgs[i].Role || m.Text != msgs[i].Text || len(m.ToolCalls) != len(msgs[i].ToolCalls) || len(m.ToolResults) != len(msgs[i].ToolResults) {
			t.Errorf("message %d differs after the restart: %+v vs %+v", i, m, msgs[i])
		}
	}
	s, err := session.Load(first.Log)
	if err != nil || s.Turns != 2 || s.Outcome != "done" {
		t.Errorf("after the reply the session has %+v, %v", s.Summary, err)
	}
	files, _ := filepath.Glob(filepath.Join(sessionsOf(t, root), "*.jsonl"))
	for _, f := range files {
		if data, _ := os.ReadFile(f); strings.Contains(string(data), "sk-run-test-KEY") {
			t.Errorf("%s holds the key", f)
		}
	}
	// Each run's transcript sits beside its conversation, as an editor's
	// does, and a reply continues it.
	md, err := os.ReadFile(session.TranscriptPath(first.Log))
	if err != nil {
		t.Fatalf("no transcript beside %s: %v", first.Log, err)
	}
	for _, want := range []string{"- run: `" + first.RunID + "`", "fix Add", "Fixed: Add subtracted.", "\n---\n", "does it add?", "Yes: it adds now."} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the transcript lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(string(md), "- run: `"); n != 2 {
		t.Errorf("the transcript has %d run lines, want one per turn:\n%s", n, md)
	}
	if mds, _ := filepath.Glob(filepath.Join(sessionsOf(t, root), "*.md")); len(mds) != len(files) {
		t.Errorf("transcripts %v for sessions %v, want one each", mds, files)
	}
}

// A run that fails after reaching the model stores its conversation and
// says it can go on once the cause is fixed; --continue then works. It
// does not claim "stored; reply with" as for a run that succeeded.
func TestRunFailedCanBeContinued(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		{Status: 401, Error: "invalid api key"},
		agenttest.TextTurn("Answered after the fix."),
	}})
	root := runEnv(t, srv, "openai")
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := runAgent(t.Context(), append([]string{"--root", root}, args...), strings.NewReader(""), &stdout, &stderr); code != want {
			t.Fatalf("cb-ls run %q: exit %d, want %d\n%s", args, code, want, stderr.String())
		}
		return strings.TrimSpace(stdout.String()), stderr.String()
	}
	_, stderr := run(1, "explain Add")
	if strings.Contains(stderr, "stored; reply with") || !strings.Contains(stderr, "failed and is stored as far as it got; once the cause is fixed, go on with: cb-ls run --continue") {
		t.Errorf("stderr after the failure:\n%s", stderr)
	}
	list, err := session.List([]string{root})
	if err != nil || len(list) != 1 || list[0].Outcome != "error" {
		t.Fatalf("stored runs: %+v, %v; want the failed one", list, err)
	}
	md, err := os.ReadFile(session.TranscriptPath(list[0].Log))
	if err != nil || !strings.Contains(string(md), "**Outcome:** error") || !strings.Contains(string(md), "invalid api key") {
		t.Errorf("transcript of the failed run (%v):\n%s", err, md)
	}
	if !strings.Contains(stderr, "transcript: "+session.TranscriptPath(list[0].Log)) {
		t.Errorf("stderr does not name the transcript:\n%s", stderr)
	}

	out, stderr := run(0, "--continue", "try again with @calc.go")
	if out != "Answered after the fix." || !strings.Contains(stderr, "run "+list[0].RunID+" stored; reply with") {
		t.Errorf("--continue after the failure: stdout %q, stderr:\n%s", out, stderr)
	}
	msgs := srv.Requests()[1].Messages()
	if len(msgs) < 2 || !strings.Contains(msgs[0].Text, "explain Add") || !strings.Contains(msgs[len(msgs)-1].Text, "try again") {
		t.Errorf("the continued request = %+v, want the failed run's task, then the reply", msgs)
	}
	// The reply's @-mention brings the file, as in a new run's input.
	if last := msgs[len(msgs)-1].Text; !strings.Contains(last, "File calc.go (mentioned as @calc.go)") || !strings.Contains(last, "return a - b") {
		t.Errorf("the reply does not bring @calc.go:\n%s", last)
	}
}

func TestRunContinueRefusals(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{})
	root := runEnv(t, srv, "openai")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--continue"}, 2, "missing the reply"},
		{[]string{"--continue", "more"}, 1, "no stored run to continue"},
		{[]string{"--continue=rnope", "more"}, 1, `no stored run "rnope"`},
		{[]string{"--continue=../x", "more"}, 2, "invalid run id"},
	} {
		var stdout, stderr strings.Builder
		code := runAgent(t.Context(), append([]string{"--root", root}, tc.args...), strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("refusals reached the model %d times", n)
	}
}

// A reply in a new process knows which files the earlier turns read:
// editing one of them brings no "not read" warning.
func TestRunContinueRemembersReads(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.TextTurn("Add subtracts."),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.TextTurn("Fixed."),
	}})
	root := runEnv(t, srv, "openai")
	for _, args := range [][]string{{"what does Add do?"}, {"--yes", "--continue", "fix it"}} {
		var stdout, stderr strings.Builder
		if code := runAgent(t.Context(), append([]string{"--root", root}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("cb-ls run %q: exit %d\n%s", args, code, stderr.String())
		}
	}
	res := srv.Requests()[3].ToolResults()
	if len(res) != 2 || !strings.HasPrefix(res[1].Content, "Edited calc.go") || strings.Contains(res[1].Content, "not read") {
		t.Errorf("the edit after --continue answered %+v, want no warning: calc.go was read in the first turn", res)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(data), "return a + b") {
		t.Errorf("calc.go was not edited:\n%s", data)
	}
}

// A model that accepts the request and then sends nothing ends the run
// after modelIdleTimeout with the endpoint named, stored as failed; it
// can then be continued.
func TestRunStalledModelCanBeContinued(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
				{Stall: true},
				agenttest.TextTurn("Answered at last."),
			}})
			root := runEnv(t, srv, provider)
			user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json")
			if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(user, []byte(`{"modelIdleTimeout": 1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			if code := runAgent(t.Context(), []string{"--root", root, "explain Add"}, strings.NewReader(""), &stdout, &stderr); code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr.String())
			}
			if want := "the model at " + srv.URL() + " sent nothing for 1 s"; !strings.Contains(stderr.String(), want) ||
				!strings.Contains(stderr.String(), "go on with: cb-ls run --continue") {
				t.Errorf("stderr does not say %q and how to go on:\n%s", want, stderr.String())
			}
			list, err := session.List([]string{root})
			if err != nil || len(list) != 1 || list[0].Outcome != "error" {
				t.Fatalf("stored runs: %+v, %v; want the failed one", list, err)
			}
			stdout.Reset()
			stderr.Reset()
			if code := runAgent(t.Context(), []string{"--root", root, "--continue", "try again"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("--continue: exit %d\n%s", code, stderr.String())
			}
			if out := strings.TrimSpace(stdout.String()); out != "Answered at last." {
				t.Errorf("--continue answered %q", out)
			}
		})
	}
}
