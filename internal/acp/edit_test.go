package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

const (
	calcDisk = "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
	// calcBuffer is the client's unsaved text: the model must see it.
	calcBuffer = "package calc\n\n// Add adds. (unsaved in the editor)\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
	calcFixed  = "package calc\n\n// Add adds. (unsaved in the editor)\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
)

func fixScript() agenttest.Script {
	return agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.TextTurn("Fixed: Add subtracted."),
	}}
}

// A fix reads the client's unsaved buffer, asks with the diff, and once
// allowed writes through fs/write_text_file; the disk is the editor's
// business and stays as it was.
func TestFixReadsBufferAsksAndWritesThroughClient(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			srv := agenttest.NewServer(t, fixScript())
			root := env(t, srv, provider, map[string]string{"calc.go": calcDisk})
			calc := filepath.Join(root, "calc.go")
			c := newTestClient(t)
			c.buffers[calc] = calcBuffer
			c.answer = allow
			conn := connect(t, c, fullFS)
			id := newSession(t, conn, root)

			res, err := prompt(t, conn, id, "/fix Add is wrong", calc)
			if err != nil {
				t.Fatalf("session/prompt: %v", err)
			}
			if res.StopReason != sdk.StopReasonEndTurn {
				t.Errorf("stopReason = %q, want end_turn", res.StopReason)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 3", len(reqs))
			}
			if first := reqs[0].LastUserText(); !strings.Contains(first, "(unsaved in the editor)") {
				t.Errorf("the task did not carry the buffer's text:\n%s", first)
			}
			if got := reqs[1].ToolResults(); len(got) != 1 || !strings.Contains(got[0].Content, "(unsaved in the editor)") {
				t.Errorf("read_file did not return the client's buffer: %+v", got)
			}
			if len(c.perms) != 1 {
				t.Fatalf("%d permission questions, want 1", len(c.perms))
			}
			q := c.perms[0]
			if len(q.ToolCall.Content) != 1 || q.ToolCall.Content[0].Diff == nil {
				t.Fatalf("the question carries no diff: %+v", q.ToolCall.Content)
			}
			d := q.ToolCall.Content[0].Diff
			if d.Path != calc || d.OldText == nil || *d.OldText != calcBuffer || d.NewText != calcFixed {
				t.Errorf("diff = %s old %q new %q, want %s %q → %q", d.Path, deref(d.OldText), d.NewText, calc, calcBuffer, calcFixed)
			}
			if kinds := optionKinds(q); kinds != "allow_once,allow_always,reject_once" {
				t.Errorf("options %s", kinds)
			}
			if c.writes[calc] != calcFixed {
				t.Errorf("fs/write_text_file got %q, want %q", c.writes[calc], calcFixed)
			}
			if disk, _ := os.ReadFile(calc); string(disk) != calcDisk {
				t.Errorf("the disk changed behind the editor's back: %q", disk)
			}
			calls := c.toolCalls()
			var kinds []string
			for _, tc := range calls {
				kinds = append(kinds, string(tc.Kind))
				if len(tc.Locations) == 0 || tc.Locations[0].Path != calc {
					t.Errorf("tool call %s (%s) has locations %+v, want %s", tc.ToolCallId, tc.Title, tc.Locations, calc)
				}
			}
			if len(calls) != 2 || !strings.Contains(strings.Join(kinds, ","), "read") || !strings.Contains(strings.Join(kinds, ","), "edit") {
				t.Errorf("tool calls of kinds %v, want read and edit", kinds)
			}
			if !strings.Contains(c.text(), "Fixed: Add subtracted.") {
				t.Errorf("agent text %q lacks the answer", c.text())
			}
		})
	}
}

// The same fix rejected: nothing is written anywhere and the model is
// told the user rejected it.
func TestFixRejectedWritesNothing(t *testing.T) {
	srv := agenttest.NewServer(t, fixScript())
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	calc := filepath.Join(root, "calc.go")
	c := newTestClient(t)
	c.buffers[calc] = calcBuffer
	c.answer = reject
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "/fix", calc); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if c.nWrites != 0 {
		t.Errorf("%d fs/write_text_file calls after a rejection: %v", c.nWrites, c.writes)
	}
	if disk, _ := os.ReadFile(calc); string(disk) != calcDisk {
		t.Errorf("disk changed: %q", disk)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	got := reqs[2].ToolResults()
	if len(got) == 0 || got[len(got)-1].Content != "Error: edit not applied: rejected by user" {
		t.Errorf("the model was not told: %+v", got)
	}
}

// A patch of two files is one question listing both, and both land.
func TestMultiFilePatchIsOneQuestion(t *testing.T) {
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-two\n+TWO\n"
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "a.txt"}), agenttest.Call("read_file", map[string]any{"path": "b.txt"})),
		agenttest.CallTurn(agenttest.Call("apply_patch", map[string]any{"patch": patch})),
		agenttest.TextTurn("Both changed."),
	}})
	root := env(t, srv, "anthropic", map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	c := newTestClient(t)
	c.answer = allow
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "capitalise both", ""); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if len(c.perms) != 1 {
		t.Fatalf("%d questions, want 1 for the whole patch; the model got %+v", len(c.perms), srv.Requests()[len(srv.Requests())-1].ToolResults())
	}
	var paths []string
	for _, ct := range c.perms[0].ToolCall.Content {
		if ct.Diff != nil {
			paths = append(paths, filepath.Base(ct.Diff.Path)+"="+strings.TrimSpace(ct.Diff.NewText))
		}
	}
	if strings.Join(paths, " ") != "a.txt=ONE b.txt=TWO" {
		t.Errorf("diffs %v, want a.txt=ONE b.txt=TWO", paths)
	}
	if title := deref(c.perms[0].ToolCall.Title); !strings.Contains(title, "a.txt") || !strings.Contains(title, "b.txt") {
		t.Errorf("title %q does not name both files", title)
	}
	if c.writes[filepath.Join(root, "a.txt")] != "ONE\n" || c.writes[filepath.Join(root, "b.txt")] != "TWO\n" {
		t.Errorf("writes %v", c.writes)
	}
}

// A client without fs capabilities: reads and writes go to the disk,
// atomically, after the same question.
func TestWithoutFSCapabilitiesUsesDisk(t *testing.T) {
	srv := agenttest.NewServer(t, fixScript())
	root := env(t, srv, "openai", map[string]string{"calc.go": calcDisk})
	calc := filepath.Join(root, "calc.go")
	c := newTestClient(t)
	c.buffers[calc] = calcBuffer // never asked for: the client offers no fs
	c.answer = allow
	conn := connect(t, c, sdk.FileSystemCapabilities{})
	id := newSession(t, conn, root)
	if _, err := prompt(t, conn, id, "/fix", calc); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if c.nReads+c.nWrites != 0 {
		t.Errorf("%d fs/read and %d fs/write calls to a client that offered none", c.nReads, c.nWrites)
	}
	if len(c.perms) != 1 {
		t.Errorf("%d questions, want 1", len(c.perms))
	}
	disk, _ := os.ReadFile(calc)
	if string(disk) != strings.Replace(calcDisk, "a - b", "a + b", 1) {
		t.Errorf("disk = %q", disk)
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, ".*.cb-tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func optionKinds(q sdk.RequestPermissionRequest) string {
	var out []string
	for _, o := range q.Options {
		out = append(out, string(o.Kind))
	}
	return strings.Join(out, ",")
}
