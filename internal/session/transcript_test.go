package session

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

func testHeader() TranscriptHeader {
	return TranscriptHeader{
		RunID: "r1", Command: "fix", Title: "Agent: Fix This", File: "calc.go",
		StartLine: 3, EndLine: 5, Model: "m", Input: "make it add", Started: time.Date(2026, 12, 2, 11, 30, 0, 0, time.UTC),
	}
}

func TestTranscriptRendersEvents(t *testing.T) {
	tr := NewTranscript(testHeader())
	tr.Add(agent.Event{Kind: agent.EventStep, Step: 1})
	tr.Add(agent.Event{Kind: agent.EventText, Text: "Let me "})
	tr.Add(agent.Event{Kind: agent.EventText, Text: "look."})
	tr.Add(agent.Event{Kind: agent.EventToolCall, Tool: "edit_file", Args: json.RawMessage(`{"path": "calc.go",  "old_string": "a - b"}`)})
	tr.Add(agent.Event{Kind: agent.EventToolResult, Tool: "edit_file", Output: "Edited calc.go +1 -1",
		Edits: []tools.EditInfo{{Rel: "calc.go", Added: 1, Removed: 1, Diff: "-a - b\n+a + b\n"}}})
	tr.Add(agent.Event{Kind: agent.EventStep, Step: 2})
	tr.Add(agent.Event{Kind: agent.EventText, Text: "Fixed."})
	got := tr.Finish("done", agent.Outcome{Answer: "Fixed.", Steps: 2, Usage: agent.Usage{InputTokens: 10, OutputTokens: 3}}, nil)

	for _, want := range []string{
		"# Agent: Fix This",
		"- file: `calc.go` lines 3–5",
		"> make it add",
		"## Step 1\n\nLet me look.\n\n**edit_file** `{\"old_string\":\"a - b\",\"path\":\"calc.go\"}`",
		"result of edit_file:\n\n```\nEdited calc.go +1 -1\n```",
		"calc.go +1 -1:\n\n```diff\n-a - b\n+a + b\n```",
		"**Outcome:** done after 2 step(s); tokens in 10, out 3",
		"## Answer\n\nFixed.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
}

// Everything the agent reports goes in, once, in order: the settings it
// runs with (never a key), the rules, each user message, compaction and
// its summary; a failed turn keeps its error.
func TestTranscriptRendersTheWholeTurn(t *testing.T) {
	tr := NewTranscript(testHeader())
	tr.Add(agent.Event{Kind: agent.EventStart, Run: &agent.RunInfo{Workspace: "/p", Provider: "openai", Model: "m", BaseURL: "http://x/v1"},
		Rules: []string{"AGENTS.md"}})
	tr.Add(agent.Event{Kind: agent.EventUser, Text: "Fix the selected code in calc.go.\nmake it add"})
	tr.Add(agent.Event{Kind: agent.EventStep, Step: 1})
	tr.Add(agent.Event{Kind: agent.EventText, Text: "Reading."})
	tr.Add(agent.Event{Kind: agent.EventRules, Step: 2, Rules: []string{"AGENTS.md", "lib/CLAUDE.md"}})
	tr.Add(agent.Event{Kind: agent.EventCompact, Step: 2, Text: "Compacted the conversation.", Summary: "I read calc.go."})
	tr.Add(agent.Event{Kind: agent.EventUser, Step: 3, Text: "You have reached the step limit."})
	got := tr.Finish("error", agent.Outcome{Steps: 3}, errors.New("openai at http://x: 401"))
	order := []string{
		"# Agent: Fix This\n\n- run: `r1`\n- command: `fix`\n",
		"- workspace: `/p`\n- endpoint: openai at http://x/v1\n- rules: `AGENTS.md`\n",
		"## User\n\nFix the selected code in calc.go.\nmake it add\n",
		"## Step 1\n\nReading.\n\n",
		"- rules: `AGENTS.md`, `lib/CLAUDE.md`\n",
		"> Compacted the conversation.\n\n**Summary that replaced the older turns:**\n\nI read calc.go.\n",
		"## User\n\nYou have reached the step limit.\n",
		"**Outcome:** error after 3 step(s)",
		"**Error:** openai at http://x: 401",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(got[at:], want)
		if i < 0 {
			t.Fatalf("transcript lacks %q after offset %d:\n%s", want, at, got)
		}
		at += i + len(want)
	}
	for _, once := range []string{"# Agent: Fix This", "- run: `r1`", "**Outcome:**"} {
		if n := strings.Count(got, once); n != 1 {
			t.Errorf("%q appears %d times, want once:\n%s", once, n, got)
		}
	}
}

func TestTranscriptCutsLongOutputOnRuneBoundary(t *testing.T) {
	tr := NewTranscript(testHeader())
	tr.maxTool = 10
	tr.Add(agent.Event{Kind: agent.EventToolResult, Tool: "read_file", Output: "aaaaaaaaa😀😀😀"})
	got := tr.Finish("done", agent.Outcome{}, nil)
	if !utf8.ValidString(got) {
		t.Fatalf("cut split a rune: %q", got)
	}
	if !strings.Contains(got, "aaaaaaaaa…\n(12 bytes cut)") {
		t.Errorf("want the output cut after 9 bytes with a note:\n%s", got)
	}
}

func TestFenceOutgrowsBackticks(t *testing.T) {
	got := fence("a ``` b", "")
	if !strings.HasPrefix(got, "````\n") || !strings.HasSuffix(got, "\n````") {
		t.Errorf("fence = %q, want four backticks around text containing three", got)
	}
}

func TestWriteTranscriptRedactsSecretsAndIsPrivate(t *testing.T) {
	root := t.TempDir()
	const key = "sk-test-1234567890"
	l := NewLog(root, Header{RunID: "r7", Command: "my cmd/../x", Started: time.Date(2026, 12, 2, 11, 30, 5, 0, time.UTC)})
	path, err := l.WriteTranscript("the key is "+key+" and short ab", key, "ab")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := DirOf(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "20261202-113005-r7-my_cmd____x.md"); path != want || TranscriptPath(l.Path) != want {
		t.Errorf("path = %q (TranscriptPath %q), want %q, beside the session file", path, TranscriptPath(l.Path), want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != "the key is [redacted] and short ab" {
		t.Errorf("written %q", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("transcript mode %v: readable by others", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("sessions dir holds %d entries, want only the transcript (no temp files)", len(entries))
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("the project holds %v after a transcript, want nothing of cb-ls's", ents)
	}
}

// TestNothingInTheProject: after a session and its transcript, the
// project holds nothing of cb-ls's and git status is as before, and a
// ".catbuddy" link a project ships (to a place outside) is not written
// through: cb-ls keeps nothing there.
func TestNothingInTheProject(t *testing.T) {
	git := testenv.NeedsTool(t, "git", "checking that cb-ls leaves git status alone", "apt-get install git")
	root, outside := t.TempDir(), t.TempDir()
	gitRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitRun("init", "-q")
	if err := os.Symlink(outside, filepath.Join(root, ".catbuddy")); err != nil {
		t.Fatal(err)
	}
	before := gitRun("status", "--porcelain", "--ignored", "--untracked-files=all")
	l := NewLog(root, Header{RunID: "r1", Command: "fix", Started: time.Date(2026, 12, 2, 11, 30, 5, 0, time.UTC)})
	if err := l.AppendTurn(exchange("q", "x.go"), Turn{Outcome: "done"}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WriteTranscript("a transcript", ""); err != nil {
		t.Fatal(err)
	}
	if err := Reserve(root, "r2"); err != nil {
		t.Fatal(err)
	}
	if after := gitRun("status", "--porcelain", "--ignored", "--untracked-files=all"); after != before {
		t.Errorf("git status changed:\n%s\nwas:\n%s", after, before)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written through the project's .catbuddy link: %v", ents)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 2 { // .git and the link
		t.Errorf("the project holds %v", ents)
	}
	if got, err := Find([]string{root}, "r1"); err != nil || got != l.Path {
		t.Errorf("Find = %q, %v; want %s", got, err, l.Path)
	}
}

// What the transcript already shows is not repeated: a user message
// that is only the quoted input, a diff the tool's output holds.
func TestTranscriptSaysThingsOnce(t *testing.T) {
	tr := NewTranscript(testHeader())
	tr.Add(agent.Event{Kind: agent.EventUser, Text: "make it add\n"})
	diff := "-a - b\n+a + b\n"
	tr.Add(agent.Event{Kind: agent.EventToolResult, Tool: "edit_file", Output: "Edited calc.go (+1 -1)\n" + diff,
		Edits: []tools.EditInfo{{Rel: "calc.go", Added: 1, Removed: 1, Diff: diff}}})
	got := tr.Finish("done", agent.Outcome{}, nil)
	for _, once := range []string{"make it add", "+a + b"} {
		if n := strings.Count(got, once); n != 1 {
			t.Errorf("%q appears %d times, want once:\n%s", once, n, got)
		}
	}
}

// An update_plan call is the plan as a checklist; its "Plan updated."
// result adds nothing. A refused plan is shown as any failed call.
func TestTranscriptRendersThePlan(t *testing.T) {
	tr := NewTranscript(testHeader())
	tr.Add(agent.Event{Kind: agent.EventStep, Step: 1})
	plan := `{"plan":[{"step":"Read calc.go","status":"completed"},{"step":"Fix Add","status":"in_progress"},{"step":"Test","status":"pending"}]}`
	tr.Add(agent.Event{Kind: agent.EventToolCall, Tool: tools.PlanToolName, Args: json.RawMessage(plan)})
	tr.Add(agent.Event{Kind: agent.EventToolResult, Tool: tools.PlanToolName, Output: "Plan updated."})
	bad := `{"plan":[{"step":"a","status":"done"}]}`
	tr.Add(agent.Event{Kind: agent.EventToolCall, Tool: tools.PlanToolName, Args: json.RawMessage(bad)})
	tr.Add(agent.Event{Kind: agent.EventToolResult, Tool: tools.PlanToolName, Output: "Error: step 1: status \"done\" is not pending, in_progress or completed", IsError: true})
	got := tr.Finish("done", agent.Outcome{Steps: 1}, nil)
	want := "**Plan:**\n\n- [x] Read calc.go\n- [ ] **Fix Add** (in progress)\n- [ ] Test\n"
	if !strings.Contains(got, want) {
		t.Errorf("transcript lacks the checklist %q:\n%s", want, got)
	}
	if strings.Contains(got, "Plan updated.") {
		t.Errorf("transcript shows the plan's result:\n%s", got)
	}
	if !strings.Contains(got, "**update_plan** `") || !strings.Contains(got, "error of update_plan") {
		t.Errorf("the refused plan is not shown as a failed call:\n%s", got)
	}
}
