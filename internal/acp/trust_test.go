package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// A cloned project whose .catbuddy/ asks for more than a project gets by
// default is asked about once, with the editors' wording, before its
// first turn; once trusted, a new session does not ask again.
func TestTrustQuestionBeforeFirstTurn(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("hi"), agenttest.TextTurn("again")}})
	root := env(t, srv, "openai", map[string]string{".catbuddy/config.json": `{"baseUrl": "http://127.0.0.1:9/v1"}`})
	c := newTestClient(t)
	c.answer = func(q sdk.RequestPermissionRequest) string {
		if strings.HasPrefix(deref(q.ToolCall.Title), "Trust the project") {
			return "trust"
		}
		return ""
	}
	conn := connect(t, c, fullFS)
	id := newSession(t, conn, root)
	if res, err := prompt(t, conn, id, "hello", ""); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", res.StopReason, err)
	}
	if len(c.perms) != 1 {
		t.Fatalf("%d questions, want the trust question", len(c.perms))
	}
	q := c.perms[0]
	var text string
	for _, ct := range q.ToolCall.Content {
		if ct.Content != nil && ct.Content.Content.Text != nil {
			text += ct.Content.Content.Text.Text
		}
	}
	for _, want := range []string{"Trust the project " + root + "?", `baseUrl = "http://127.0.0.1:9/v1"`, "(Your API key goes to a baseUrl set here.)", "Not now: none of this runs or applies"} {
		if !strings.Contains(text, want) {
			t.Errorf("question lacks %q:\n%s", want, text)
		}
	}
	if got := optionKinds(q); got != "allow_always,reject_once" {
		t.Errorf("options %s", got)
	}
	id2 := newSession(t, conn, root)
	if _, err := prompt(t, conn, id2, "hello again", ""); err != nil {
		t.Fatal(err)
	}
	if len(c.perms) != 1 {
		t.Errorf("asked again after Trust: %d questions", len(c.perms))
	}
}
