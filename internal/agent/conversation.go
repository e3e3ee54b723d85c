package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/filestate"
)

// A run is a conversation: Outcome.Messages holds it when the run ends,
// and Reply continues it with the user's next message. The conversation
// carries everything the model saw (tool calls and results included), so
// a reply costs nothing but the new turn; the system prompt is rebuilt
// each time because the tools and the work root may have changed.

// ErrNoHistory is returned by Reply for an empty conversation.
var ErrNoHistory = errors.New("no conversation to continue")

// Reply continues a conversation that ended: history is the previous
// Outcome.Messages (it is not modified), input the user's new message.
// command is the run's command, which decides the tools offered. The
// FileStates in ctx should be the run's own, so that the files it read
// stay deduplicated; a fresh one is used otherwise. Files the input
// @-mentions are added to it as to a new task's input (mentions.go).
func (r *Runner) Reply(ctx context.Context, command string, history []Message, input string, emit func(Event)) (Outcome, error) {
	if len(history) == 0 {
		return Outcome{}, ErrNoHistory
	}
	input = strings.TrimSpace(input)
	if input == "" {
		return Outcome{}, errors.New("empty reply: say what the agent should do next")
	}
	if filestate.FromContext(ctx) == nil {
		ctx = filestate.NewContext(ctx, filestate.New())
	}
	if r.WorkRoot != nil {
		restoreReads(filestate.FromContext(ctx), history, r.WorkRoot())
	}
	return r.converse(ctx, Task{Command: command, Input: input}, func(_ config.Command, workRoot string) []Message {
		// @-mentions bring their files as in a new task's input.
		return appendUserText(history, input+mentionedFiles(ctx, r.Files, input, workRoot))
	}, emit)
}

// interruptedText stands in for the answer of a turn that ended before
// the model answered (the run was cancelled or the model failed).
const interruptedText = "(No answer: the previous turn was interrupted.)"

// appendUserText returns a copy of msgs followed by the user's text. A
// conversation that stopped right after a user message gets a stand-in
// assistant message first: providers expect the roles to alternate, and
// the stored conversation stays append-only.
func appendUserText(msgs []Message, text string) []Message {
	out := slices.Clip(slices.Clone(msgs))
	if n := len(out); n > 0 && out[n-1].Role == RoleUser {
		out = append(out, Message{Role: RoleAssistant, Text: interruptedText})
	}
	return append(out, Message{Role: RoleUser, Text: text})
}

// toolCallJSON is ToolCall's stored form: the arguments as a string,
// because a model may send arguments that are not valid JSON.
type toolCallJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
}

// MarshalJSON stores the arguments verbatim, valid JSON or not.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	return json.Marshal(toolCallJSON{ID: c.ID, Name: c.Name, Args: string(c.Args)})
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var w toolCallJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = ToolCall{ID: w.ID, Name: w.Name, Args: json.RawMessage(w.Args)}
	return nil
}
