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

// TestPendingQuestionSaysRunsLaterAndNotKept: the keep question at the end
// of a turn says, for each file it asks about, what its diff does not: that
// .envrc runs later (direnv loads it), that a hook under .git/ runs later
// and will not be kept, and what a whole-file item (a link) is. A client
// that shows every content item gets it in the one question's title; one
// that shows only the first (CodeCompanion) in each file's own question.
func TestPendingQuestionSaysRunsLaterAndNotKept(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
	for _, client := range []string{"acp-test", "CodeCompanion.nvim"} {
		t.Run(client, func(t *testing.T) {
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
				agenttest.CallTurn(agenttest.Call("exec", map[string]any{
					"command": "echo 'export X=1' > .envrc && mkdir -p .git/hooks && printf '#!/bin/sh\\n' > .git/hooks/pre-commit && ln -s a.txt lnk",
					"write":   true, "reason": "set up"})),
				agenttest.TextTurn("Done."),
			}})
			root := env(t, srv, "openai", map[string]string{"a.txt": "one\n"})
			c := newTestClient(t)
			c.review = ""
			c.answer = reject
			conn := connectAs(t, c, fullFS, client)
			id := newSession(t, conn, root)
			if res, err := prompt(t, conn, id, "set things up", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("prompt: %v %v", res.StopReason, err)
			}
			if len(c.perms) == 0 {
				t.Fatal("no keep question")
			}
			var text strings.Builder
			for _, q := range c.perms {
				if q.ToolCall.Title != nil {
					text.WriteString(*q.ToolCall.Title + "\n")
				}
				for _, ct := range q.ToolCall.Content {
					if ct.Content != nil && ct.Content.Content.Text != nil {
						text.WriteString(ct.Content.Content.Text.Text + "\n")
					}
				}
			}
			got := text.String()
			for _, want := range []string{
				".envrc? (runs later: direnv loads it on cd)",
				"pre-commit",
				"not kept: cb-ls never writes into a .git directory",
				"runs later: git runs its hooks",
				"lnk: link -> a.txt",
			} {
				if client == "acp-test" && want == ".envrc? (runs later: direnv loads it on cd)" {
					want = "- .envrc: runs later: direnv loads it on cd"
				}
				if !strings.Contains(got, want) {
					t.Errorf("the keep question does not say %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "not kept: not kept") {
				t.Errorf("the refusal is said twice:\n%s", got)
			}
		})
	}
}

// TestPendingAllowKeepsAllButTheRefused: Allow on that question keeps
// .envrc and the link, leaves the hook under .git/ unwritten, and says in
// a thought why it stays pending.
func TestPendingAllowKeepsAllButTheRefused(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{
			"command": "echo 'export X=1' > .envrc && mkdir -p .git/hooks && printf '#!/bin/sh\\n' > .git/hooks/pre-commit",
			"write":   true, "reason": "set up"})),
		agenttest.TextTurn("Done."),
	}})
	root := env(t, srv, "openai", map[string]string{"a.txt": "one\n"})
	c := newTestClient(t)
	c.review = ""
	c.answer = allow
	conn := connectAs(t, c, fullFS, "acp-test")
	id := newSession(t, conn, root)
	if res, err := prompt(t, conn, id, "set things up", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", res.StopReason, err)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".envrc")); err != nil && c.writes[filepath.Join(root, ".envrc")] == "" {
		t.Errorf(".envrc was not kept: %v %q", err, b)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); !os.IsNotExist(err) {
		t.Errorf("the hook under .git/ reached the disk: %v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var thoughts strings.Builder
	for _, u := range c.updates {
		if u.Update.AgentThoughtChunk != nil && u.Update.AgentThoughtChunk.Content.Text != nil {
			thoughts.WriteString(u.Update.AgentThoughtChunk.Content.Text.Text)
		}
	}
	if !strings.Contains(thoughts.String(), ".git directory") {
		t.Errorf("no thought says why the hook stays pending:\n%s", thoughts.String())
	}
}
