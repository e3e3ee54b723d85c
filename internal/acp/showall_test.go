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

// Three files a turn leaves pending: calc.go, mul.go and sub.go.
var threeFiles = map[string]string{
	"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
	"mul.go":  "package calc\n\nfunc Mul(a, b int) int { return a + b }\n",
	"sub.go":  "package calc\n\nfunc Sub(a, b int) int { return a * b }\n",
}

// editThree is a turn's script that fixes all three, then more turns.
func editThree(more ...agenttest.Turn) agenttest.Script {
	turns := []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "a - b", "new_string": "a + b"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "mul.go", "old_string": "a + b", "new_string": "a * b"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "sub.go", "old_string": "a * b", "new_string": "a - b"})),
	}
	return agenttest.Script{Turns: append(turns, more...)}
}

func needsLayer(t *testing.T) {
	t.Helper()
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
}

// CodeCompanion shows only the first content item (and location) of a
// question, so three pending files are three questions, each with its
// file's diff as its only content; each answer decides its file.
func TestPendingOneQuestionPerFileForCodeCompanion(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, editThree(agenttest.TextTurn("Fixed all three.")))
	root := env(t, srv, "openai", threeFiles)
	c := newTestClient(t)
	c.review = "" // pending, the default
	c.answer = func(q sdk.RequestPermissionRequest) string {
		if len(q.ToolCall.Locations) > 0 && filepath.Base(q.ToolCall.Locations[0].Path) == "mul.go" {
			return "reject"
		}
		return "allow"
	}
	conn := connectAs(t, c, fullFS, "CodeCompanion.nvim")
	id := newSession(t, conn, root)
	if res, err := prompt(t, conn, id, "fix the arithmetic", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", res.StopReason, err)
	}
	c.mu.Lock()
	perms := append([]sdk.RequestPermissionRequest(nil), c.perms...)
	c.mu.Unlock()
	if len(perms) != 3 {
		t.Fatalf("%d questions, want one per pending file (3)", len(perms))
	}
	seen := map[string]bool{}
	calls := map[sdk.ToolCallId]bool{}
	for _, q := range perms {
		calls[q.ToolCall.ToolCallId] = true
		if len(q.ToolCall.Content) != 1 || q.ToolCall.Content[0].Diff == nil {
			t.Fatalf("question %q: content %+v, want its file's diff alone", title(q), q.ToolCall.Content)
		}
		d := q.ToolCall.Content[0].Diff
		if len(q.ToolCall.Locations) == 0 || q.ToolCall.Locations[0].Path != d.Path {
			t.Errorf("question %q: first location %v is not its diff's file %s", title(q), q.ToolCall.Locations, d.Path)
		}
		name := filepath.Base(d.Path)
		if !strings.Contains(title(q), name) {
			t.Errorf("question %q does not name %s", title(q), name)
		}
		seen[name] = true
	}
	for name := range threeFiles {
		if !seen[name] {
			t.Errorf("no question showed %s: %v", name, seen)
		}
	}
	if len(calls) != 3 {
		t.Errorf("%d tool calls for 3 questions, want one each", len(calls))
	}
	want := map[string]string{
		"calc.go": strings.Replace(threeFiles["calc.go"], "a - b", "a + b", 1),
		"mul.go":  threeFiles["mul.go"], // rejected
		"sub.go":  strings.Replace(threeFiles["sub.go"], "a * b", "a - b", 1),
	}
	for name, text := range want {
		// CodeCompanion is disk-backed: kept files are written to the disk.
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != text {
			t.Errorf("%s on disk %q, want %q", name, b, text)
		}
	}
}

// The end-of-turn question has a tool call of its own: rejecting it
// leaves the turn's command shown as it ended, completed.
func TestPendingQuestionOwnToolCall(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "a - b", "new_string": "a + b"})),
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "cat calc.go", "reason": "look at it"})),
		agenttest.TextTurn("Fixed, and the file looks right."),
	}})
	root := env(t, srv, "openai", threeFiles)
	c := newTestClient(t)
	c.review = ""
	c.answer = reject
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "fix Add", ""); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 1 {
		t.Fatalf("%d questions, want the one at the turn's end", len(c.perms))
	}
	q := c.perms[0]
	var execID sdk.ToolCallId
	starts := map[sdk.ToolCallId]*sdk.SessionUpdateToolCall{}
	status := map[sdk.ToolCallId]sdk.ToolCallStatus{}
	for _, u := range c.updates {
		if tc := u.Update.ToolCall; tc != nil {
			starts[tc.ToolCallId] = tc
			status[tc.ToolCallId] = tc.Status
			if tc.Kind == sdk.ToolKindExecute {
				execID = tc.ToolCallId
			}
		}
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status != nil {
			status[tu.ToolCallId] = *tu.Status
		}
	}
	if execID == "" {
		t.Fatal("no execute tool call was shown")
	}
	if q.ToolCall.ToolCallId == execID {
		t.Errorf("the end-of-turn question asks on the command's tool call %s", execID)
	}
	questionStart := starts[q.ToolCall.ToolCallId]
	if questionStart == nil {
		t.Fatalf("the question's tool call %s was never announced", q.ToolCall.ToolCallId)
	}
	if questionStart.Kind != sdk.ToolKindEdit || !strings.Contains(questionStart.Title, "Keep") {
		t.Errorf("the question's call: kind %q title %q, want an edit asking to keep", questionStart.Kind, questionStart.Title)
	}
	if status[execID] != sdk.ToolCallStatusCompleted {
		t.Errorf("the command that exited 0 is shown %q after the reject, want completed", status[execID])
	}
	if status[q.ToolCall.ToolCallId] != sdk.ToolCallStatusFailed {
		t.Errorf("the rejected question's call is %q, want failed", status[q.ToolCall.ToolCallId])
	}
}

// A keep the client applies only in part (its write of mul.go fails) is
// reported as failed, naming what landed and what did not, and never
// shows mul.go's diff as kept.
func TestPendingPartialKeepReported(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, editThree(agenttest.TextTurn("Fixed all three.")))
	root := env(t, srv, "openai", threeFiles)
	c := newTestClient(t)
	c.review = ""
	c.answer = allow
	c.failWrites = map[string]bool{filepath.Join(root, "mul.go"): true}
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "fix the arithmetic", ""); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 1 {
		t.Fatalf("%d questions, want 1", len(c.perms))
	}
	if _, ok := c.writes[filepath.Join(root, "calc.go")]; !ok {
		t.Fatalf("calc.go was not written (writes %v): no partial keep to report", c.writes)
	}
	call := c.perms[0].ToolCall.ToolCallId
	var final *sdk.SessionToolCallUpdate
	for _, u := range c.updates {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == call && tu.Status != nil {
			final = tu
		}
	}
	if final == nil {
		t.Fatal("the question's tool call never ended")
	}
	if *final.Status == sdk.ToolCallStatusCompleted {
		t.Errorf("a keep whose write of mul.go failed is reported completed")
	}
	var text string
	for _, ct := range final.Content {
		if ct.Diff != nil && filepath.Base(ct.Diff.Path) == "mul.go" {
			t.Errorf("mul.go's diff is shown as kept")
		}
		if ct.Content != nil && ct.Content.Content.Text != nil {
			text += ct.Content.Content.Text.Text
		}
	}
	landed, notKept, _ := strings.Cut(text, "Not kept")
	if !strings.Contains(landed, "calc.go") || !strings.Contains(notKept, "mul.go") {
		t.Errorf("the report %q does not say calc.go landed and mul.go did not", text)
	}
}

func title(q sdk.RequestPermissionRequest) string {
	if q.ToolCall.Title == nil {
		return ""
	}
	return *q.ToolCall.Title
}

// With review "before", a two-file patch for CodeCompanion is one
// question per file, on the patch's own tool call; one file rejected,
// the patch does not land at all.
func TestChangeOneQuestionPerFileForCodeCompanion(t *testing.T) {
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-two\n+TWO\n"
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "a.txt"}), agenttest.Call("read_file", map[string]any{"path": "b.txt"})),
		agenttest.CallTurn(agenttest.Call("apply_patch", map[string]any{"patch": patch})),
		agenttest.TextTurn("Not changed."),
	}})
	root := env(t, srv, "openai", map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	c := newTestClient(t) // review before
	c.answer = func(q sdk.RequestPermissionRequest) string {
		if strings.Contains(title(q), "b.txt") {
			return "reject"
		}
		return "allow"
	}
	conn := connectAs(t, c, fullFS, "CodeCompanion.nvim")
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "capitalise both", ""); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 2 {
		t.Fatalf("%d questions for a two-file patch, want one per file", len(c.perms))
	}
	for i, name := range []string{"a.txt", "b.txt"} {
		q := c.perms[i]
		if len(q.ToolCall.Content) != 1 || q.ToolCall.Content[0].Diff == nil || filepath.Base(q.ToolCall.Content[0].Diff.Path) != name {
			t.Errorf("question %d (%q): content %+v, want %s's diff alone", i, title(q), q.ToolCall.Content, name)
		}
		if q.ToolCall.ToolCallId != c.perms[0].ToolCall.ToolCallId {
			t.Errorf("question %d is on tool call %s, not the patch's %s", i, q.ToolCall.ToolCallId, c.perms[0].ToolCall.ToolCallId)
		}
	}
	for name, text := range map[string]string{"a.txt": "one\n", "b.txt": "two\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != text {
			t.Errorf("%s is %q although the patch was rejected", name, b)
		}
	}
}

// acpx shows only a question's title: the end-of-turn question's title
// carries every pending file's unified diff.
func TestPendingDiffsInTitleForAcpx(t *testing.T) {
	needsLayer(t)
	srv := agenttest.NewServer(t, editThree(agenttest.TextTurn("Fixed all three.")))
	root := env(t, srv, "openai", threeFiles)
	c := newTestClient(t)
	c.review = ""
	c.answer = reject
	conn := connectAs(t, c, fullFS, "acpx")
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "fix the arithmetic", ""); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 1 {
		t.Fatalf("%d questions, want 1", len(c.perms))
	}
	got := title(c.perms[0])
	for _, d := range []struct{ file, from, to string }{{"calc.go", "a - b", "a + b"}, {"mul.go", "a + b", "a * b"}, {"sub.go", "a * b", "a - b"}} {
		line := strings.Split(threeFiles[d.file], "\n")[2]
		want := "--- a/" + d.file + "\n+++ b/" + d.file + "\n"
		change := "-" + line + "\n+" + strings.Replace(line, d.from, d.to, 1) + "\n"
		if !strings.Contains(got, want) || !strings.Contains(got, change) {
			t.Errorf("the title lacks %s's diff:\n%s", d.file, got)
		}
	}
}

// agent-shell showed only the first diff of a question up to 0.50.1:
// that version gets one question per pending file, a later one a single
// question with every diff.
func TestPendingQuestionsForAgentShellVersions(t *testing.T) {
	needsLayer(t)
	for version, want := range map[string]int{"0.50.1": 3, "0.51.0": 1} {
		t.Run(version, func(t *testing.T) {
			srv := agenttest.NewServer(t, editThree(agenttest.TextTurn("Fixed all three.")))
			root := env(t, srv, "openai", threeFiles)
			c := newTestClient(t)
			c.review = ""
			c.answer = reject
			conn := connectClient(t, c, fullFS, sdk.Implementation{Name: "agent-shell", Version: version})
			id := newSession(t, conn, root)
			if _, err := prompt(t, conn, id, "fix the arithmetic", ""); err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			diffs := 0
			for _, q := range c.perms {
				for _, ct := range q.ToolCall.Content {
					if ct.Diff != nil {
						diffs++
					}
				}
			}
			if len(c.perms) != want || diffs != 3 {
				t.Errorf("agent-shell %s: %d questions with %d diffs, want %d with 3", version, len(c.perms), diffs, want)
			}
		})
	}
}
