package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/filestate"
)

// TestStaleReadsGiveWay: a read of a file the run changed since gives
// way to staleNote once the model has left the file alone for
// staleAfter turns, and not before; a read of a file it keeps editing
// stays while it does; a read of an unchanged file stays for good.
func TestStaleReadsGiveWay(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		_, r := project(t, map[string]string{
			"a.go": "package a\n\n// A is ORIGINAL-A.\nconst A = 1\n",
			"b.go": "package a\n\n// B is KEPT-B.\nconst B = 2\n",
			"c.go": "package a\n\n// C is ORIGINAL-C.\nconst C = 3\nconst D = 4\n",
		})
		read := func(p string) agenttest.ToolCall { return agenttest.Call("read_file", map[string]any{"path": p}) }
		edit := func(p, old, new string) agenttest.ToolCall {
			return agenttest.Call("edit_file", map[string]any{"path": p, "old_string": old, "new_string": new})
		}
		list := agenttest.Call("list_dir", map[string]any{})
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
			agenttest.CallTurn(read("a.go"), read("b.go"), read("c.go")), // step 1
			agenttest.CallTurn(edit("a.go", "const A = 1", "const A = 10"), edit("c.go", "const C = 3", "const C = 30")),
			agenttest.CallTurn(list),
			agenttest.CallTurn(edit("c.go", "const D = 4", "const D = 40")), // step 4: still working on c.go
			agenttest.CallTurn(list),
			agenttest.CallTurn(list),
			agenttest.TextTurn("done"), // step 7
		}})
		r.Config = m.config(srv)
		out, err := r.Run(t.Context(), Task{Command: "ask", Input: "Raise the constants."}, (&events{}).emit)
		if err != nil || out.Answer != "done" {
			t.Fatalf("run: %q, %v", out.Answer, err)
		}
		reqs := srv.Requests()
		if len(reqs) != 7 {
			t.Fatalf("%d requests, want 7", len(reqs))
		}
		// result returns what request i (the one of step i+1) carried as
		// the result of step 1's call k.
		result := func(i, k int) string {
			t.Helper()
			for _, res := range reqs[i].ToolResults() {
				if res.CallID == m.callID(0, k) {
					return res.Content
				}
			}
			t.Fatalf("request %d has no result for %s", i, m.callID(0, k))
			return ""
		}
		for i, req := range reqs {
			checkPairs(t, i, req)
		}
		want := []struct {
			step        int
			a, b, c     string // what each read shows: its marker, or staleNote
			description string
		}{
			{4, "ORIGINAL-A", "KEPT-B", "ORIGINAL-C", "two turns after the change: every read is kept"},
			{5, staleNote, "KEPT-B", "ORIGINAL-C", "a.go left alone for three turns gives way; c.go was edited a turn ago"},
			{6, staleNote, "KEPT-B", "ORIGINAL-C", "c.go edited two turns ago is kept"},
			{7, staleNote, "KEPT-B", staleNote, "c.go left alone for three turns gives way; b.go never changed"},
		}
		for _, w := range want {
			for k, marker := range []string{w.a, w.b, w.c} {
				got := result(w.step-1, k)
				if marker == staleNote {
					if got != staleNote {
						t.Errorf("step %d (%s): read %d is\n%s\nwant only the note %q", w.step, w.description, k, got, staleNote)
					}
				} else if !strings.Contains(got, marker) {
					t.Errorf("step %d (%s): read %d is\n%s\nwant the file's text with %q", w.step, w.description, k, got, marker)
				}
			}
		}
		// Before it went out of date, the read was the file's numbered lines.
		if got := result(3, 0); !strings.HasPrefix(got, "1\tpackage a") {
			t.Errorf("a.go's read before it went out of date is\n%s\nwant its numbered lines", got)
		}
	})
}

// TestStaleReadKeepsWhatFollows: the part of a result after the file's
// text (the run's news) stays; a result trimmed to fit is replaced whole;
// a result compacted away is left alone.
func TestStaleReadKeepsWhatFollows(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Text: "task"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "1", Name: "read_file"}, {ID: "2", Name: "read_file"}}},
		{Role: RoleUser, ToolResults: []ToolResult{
			{CallID: "1", Name: "read_file", Output: "1\tpackage a\n\n[the user kept a.go]"},
			{CallID: "2", Name: "read_file", Output: "1\tpackage b\n[… 900 of 1000 bytes trimmed to save context; call the tool again if you need them]"},
		}},
	}
	before := msgs[2].ToolResults
	for _, c := range []struct {
		ref  readRef
		want string
	}{
		{readRef{call: "1", ReadMark: &ReadMark{Bytes: len("1\tpackage a\n"), OutLen: len(before[0].Output)}}, staleNote + "\n[the user kept a.go]"},
		{readRef{call: "2", ReadMark: &ReadMark{Bytes: 600, OutLen: 1000}}, staleNote},
	} {
		i, ok := replaceResult(msgs, c.ref)
		if !ok || i != 2 {
			t.Fatalf("call %s: replaced in message %d, %v; want message 2", c.ref.call, i, ok)
		}
		for _, res := range msgs[2].ToolResults {
			if res.CallID == c.ref.call && res.Output != c.want {
				t.Errorf("call %s: output %q, want %q", c.ref.call, res.Output, c.want)
			}
		}
	}
	if strings.HasPrefix(before[0].Output, staleNote) {
		t.Error("the caller's slice of results was written through")
	}
	if _, ok := replaceResult(msgs, readRef{call: "gone", ReadMark: &ReadMark{}}); ok {
		t.Error("a result no longer in the conversation was reported replaced")
	}
}

// TestStaleReadsInAReply: a reply goes on with the reads of the
// conversation's earlier turns, as if read before its first turn: a read
// of a file the run changed gives way on the reply's third turn. A
// conversation restored from its stored form keeps its reads as they are.
func TestStaleReadsInAReply(t *testing.T) {
	for _, restored := range []bool{false, true} {
		t.Run(map[bool]string{false: "in memory", true: "restored"}[restored], func(t *testing.T) {
			m := mode{"anthropic", false}
			_, r := project(t, map[string]string{"a.go": "package a\n\n// A is ORIGINAL-A.\nconst A = 1\n"})
			list := agenttest.Call("list_dir", map[string]any{})
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
				agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "a.go"})),
				agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.go", "old_string": "const A = 1", "new_string": "const A = 10"})),
				agenttest.TextTurn("done"),
				agenttest.CallTurn(list), agenttest.CallTurn(list), agenttest.CallTurn(list), // the reply's steps 1–3
				agenttest.TextTurn("done again"),
			}})
			r.Config = m.config(srv)
			ctx := filestate.NewContext(t.Context(), filestate.New()) // the run's, across its turns
			out, err := r.Run(ctx, Task{Command: "ask", Input: "Raise A."}, (&events{}).emit)
			if err != nil || out.Answer != "done" {
				t.Fatalf("run: %q, %v", out.Answer, err)
			}
			history := out.Messages
			if restored {
				b, err := json.Marshal(history)
				if err != nil {
					t.Fatal(err)
				}
				history = nil
				if err := json.Unmarshal(b, &history); err != nil {
					t.Fatal(err)
				}
			}
			out, err = r.Reply(ctx, "ask", history, "And B?", (&events{}).emit)
			if err != nil || out.Answer != "done again" {
				t.Fatalf("reply: %q, %v", out.Answer, err)
			}
			reqs := srv.Requests()
			if len(reqs) != 7 {
				t.Fatalf("%d requests, want 7", len(reqs))
			}
			read := func(i int) string {
				for _, res := range reqs[i].ToolResults() {
					if res.CallID == m.callID(0, 0) {
						return res.Content
					}
				}
				t.Fatalf("request %d has no result for the read", i)
				return ""
			}
			if got := read(4); !strings.Contains(got, "ORIGINAL-A") {
				t.Errorf("the reply's second turn: the read is\n%s\nwant the file's text", got)
			}
			got := read(5)
			if restored && !strings.Contains(got, "ORIGINAL-A") {
				t.Errorf("restored, the reply's third turn: the read is\n%s\nwant it kept", got)
			}
			if !restored && got != staleNote {
				t.Errorf("the reply's third turn: the read is\n%s\nwant only the note", got)
			}
		})
	}
}
