package agent

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendUserText(t *testing.T) {
	ended := []Message{{Role: RoleUser, Text: "q"}, {Role: RoleAssistant, Text: "a"}}
	got := appendUserText(ended, "more")
	if d := cmp.Diff(append(ended[:2:2], Message{Role: RoleUser, Text: "more"}), got); d != "" {
		t.Errorf("after an answer (-want +got):\n%s", d)
	}
	// Cancelled while the model answered: the roles must still alternate.
	cut := []Message{{Role: RoleUser, Text: "q"}, {Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "1", Name: "grep"}}},
		{Role: RoleUser, ToolResults: []ToolResult{{CallID: "1", Name: "grep", Output: "x"}}}}
	got = appendUserText(cut, "more")
	if len(got) != 5 || got[3].Role != RoleAssistant || got[3].Text != interruptedText || got[4].Text != "more" {
		t.Errorf("after an interrupted turn: %+v", got)
	}
	if len(cut) != 3 {
		t.Errorf("the history was modified")
	}
}

func TestToolCallJSONKeepsMalformedArgs(t *testing.T) {
	for _, args := range []string{`{"path":"a.go"}`, `{"path": "a.go"`, ``} {
		b, err := json.Marshal(Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "read_file", Args: json.RawMessage(args)}}})
		if err != nil {
			t.Fatalf("marshal %q: %v", args, err)
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if string(m.ToolCalls[0].Args) != args {
			t.Errorf("args %q came back as %q", args, m.ToolCalls[0].Args)
		}
	}
}
