package acp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// The review option: session/new says pending; set to before, the next
// turn asks about each edit while it runs (before the model hears the
// result); set to pending again, the next turn asks once, after the
// model's last reply.
func TestConfigOptionReview(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "ONE"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "b.txt", "old_string": "two", "new_string": "TWO"})),
		agenttest.TextTurn("Asked twice."),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "a.txt", "old_string": "ONE", "new_string": "One"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "b.txt", "old_string": "TWO", "new_string": "Two"})),
		agenttest.TextTurn("Asked once."),
	}})
	root := env(t, srv, "openai", map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	c := newTestClient(t)
	c.review = "" // pending, the default
	// asked records how many model requests had been made at each
	// question: during a turn, or after its last request.
	var mu sync.Mutex
	var asked []int
	c.answer = func(sdk.RequestPermissionRequest) string {
		mu.Lock()
		asked = append(asked, len(srv.Requests()))
		mu.Unlock()
		return "allow"
	}
	conn := connect(t, c, fullFS)
	res, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.SessionId
	review := selectOption(t, res.ConfigOptions, "review")
	if string(review.CurrentValue) != "pending" || strings.Join(values(review), ",") != "pending,before" {
		t.Errorf("review option: current %q of %v", review.CurrentValue, values(review))
	}
	for _, o := range *review.Options.Ungrouped {
		if o.Description == nil || *o.Description == "" {
			t.Errorf("review value %q has no description", o.Value)
		}
	}

	set, err := setValue(conn, t, id, "review", "before")
	if err != nil {
		t.Fatalf("set review before: %v", err)
	}
	if got := selectOption(t, set.ConfigOptions, "review").CurrentValue; got != "before" {
		t.Errorf("the answer says review is %q", got)
	}
	if got := reportedReview(t, c); got != "before" {
		t.Errorf("config_option_update reported review %q, want before", got)
	}
	if _, err := prompt(t, conn, id, "capitalize", ""); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if fmt.Sprint(asked) != "[1 2]" {
		t.Errorf("review before: questions after model requests %v, want one per edit, after requests 1 and 2", asked)
	}
	asked = nil
	mu.Unlock()

	if _, err := setValue(conn, t, id, "review", "pending"); err != nil {
		t.Fatalf("set review pending: %v", err)
	}
	if got := reportedReview(t, c); got != "pending" {
		t.Errorf("config_option_update reported review %q, want pending", got)
	}
	if _, err := prompt(t, conn, id, "only the first letter", ""); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if fmt.Sprint(asked) != "[6]" {
		t.Errorf("review pending: questions after model requests %v, want ONE after the turn's last request (6)", asked)
	}
	mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writes[filepath.Join(root, "a.txt")] != "One\n" || c.writes[filepath.Join(root, "b.txt")] != "Two\n" {
		t.Errorf("writes %q, want both edits of the pending turn kept", c.writes)
	}
}

// Without the copy-on-write layer (the command sandbox off) a turn is
// reviewed before, and the option says so, whatever was chosen.
func TestConfigOptionReviewFallback(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{})
	root := env(t, srv, "openai", nil)
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"tools":{"execSandbox":false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t)
	c.review = "" // pending, the default
	conn := connect(t, c, fullFS)
	res, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	review := selectOption(t, res.ConfigOptions, "review")
	if review.CurrentValue != "before" {
		t.Errorf("review %q with the sandbox off, want before", review.CurrentValue)
	}
	if d := *(*review.Options.Ungrouped)[0].Description; !strings.Contains(d, "unavailable") {
		t.Errorf("the pending value does not say it is unavailable: %q", d)
	}
	set, err := setValue(conn, t, res.SessionId, "review", "pending")
	if err != nil {
		t.Fatalf("set review pending: %v", err)
	}
	if got := selectOption(t, set.ConfigOptions, "review").CurrentValue; got != "before" {
		t.Errorf("review %q after choosing pending without the layer, want before", got)
	}
}

// reportedReview is the review value of the last config_option_update.
func reportedReview(t *testing.T, c *testClient) string {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	reported := ""
	for _, u := range c.updates {
		if co := u.Update.ConfigOptionUpdate; co != nil {
			reported = string(selectOption(t, co.ConfigOptions, "review").CurrentValue)
		}
	}
	return reported
}
