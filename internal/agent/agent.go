// Package agent runs the loop that puts a model to work on a project:
// model → tool calls → tools.Registry → results → model, until the model
// answers without tool calls or the step limit is reached. It knows the
// tool layer, never the LSP.
//
// A front end does not drive the loop itself: internal/app builds a
// Runner over the front end's tools and runs each turn (App.Do). What a
// turn is asked is a Task (or, for a reply, the conversation and the
// user's text); what it reports as it goes are Events, from which every
// front end renders its progress and session renders the transcript;
// how it ended is an Outcome, whose Messages a later Reply continues.
package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// ErrNoModel is returned when no provider/model is configured.
var ErrNoModel = errors.New("no model configured")

// Diagnostic is one diagnostic in or near the task's range, from any
// source; the tools' type, so the LSP converts editor diagnostics once.
type Diagnostic = tools.Diagnostic

// Task is what the user asked for: a command applied to a place.
type Task struct {
	// Command is the id of a built-in ("fix", "explain", "ask") or custom command.
	Command string
	// Path is the absolute path of the file, "" for a free question.
	Path     string
	Language string // language id ("go", "python"); "" if unknown
	// Content is the document as the user sees it (the buffer, unsaved
	// text included), or as saved when FromDisk.
	Content []byte
	// FromDisk says Content was read from the disk, not from the
	// editor: the client does not serve its unsaved text (an ACP client
	// without fs/read_text_file, or one that answers it from the disk).
	FromDisk bool
	// StartLine and EndLine are the selection's 1-based inclusive lines (0 if none).
	StartLine, EndLine int
	Selection          string // the selected text
	Diagnostics        []Diagnostic
	// Input is the user's free text (instruction or question).
	Input string
}

// EventKind names what happened in a run.
type EventKind string

const (
	EventText       EventKind = "text"        // model text (a delta while streaming)
	EventToolCall   EventKind = "tool_call"   // the model called a tool
	EventToolResult EventKind = "tool_result" // a tool answered
	EventUsage      EventKind = "usage"       // tokens used by one model turn
	EventStep       EventKind = "step"        // a new model turn starts
	EventCompact    EventKind = "compact"     // the conversation was trimmed or summarised to fit the context window (Text says how, Summary is the summary)
	EventStart      EventKind = "start"       // a turn starts (Run says with what, Rules with which rules files); the first event of every turn
	EventRules      EventKind = "rules"       // rules files joined the system prompt (Rules lists all of them now)
	EventUser       EventKind = "user"        // a user message goes to the model (Text): the request, or the step limit's last word
)

// RunInfo is what a turn runs with, for its transcript: never the key.
type RunInfo struct {
	// Workspace is the work root.
	Workspace string `json:"workspace,omitempty"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	BaseURL   string `json:"baseUrl"`
}

// Usage counts tokens.
type Usage struct {
	// InputTokens counts every input token, cached ones included.
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	// CachedInputTokens are the input tokens read from the provider's
	// prompt cache (billed at a fraction); CacheWriteTokens those written
	// to it (Anthropic).
	CachedInputTokens int64 `json:"cachedInputTokens,omitempty"`
	CacheWriteTokens  int64 `json:"cacheWriteTokens,omitempty"`
}

// add adds o to u.
func (u *Usage) add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedInputTokens += o.CachedInputTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

// String is "12000 input (9000 cached), 300 output tokens".
func (u Usage) String() string {
	s := fmt.Sprintf("%d input", u.InputTokens)
	if u.CachedInputTokens > 0 {
		s += fmt.Sprintf(" (%d cached)", u.CachedInputTokens)
	}
	return s + fmt.Sprintf(", %d output tokens", u.OutputTokens)
}

// Event is one thing that happened in a run, for the CLI and the editor.
type Event struct {
	Kind    EventKind        `json:"kind"`
	Step    int              `json:"step"`
	Text    string           `json:"text,omitempty"`
	Tool    string           `json:"tool,omitempty"`
	CallID  string           `json:"callId,omitempty"`
	Args    json.RawMessage  `json:"args,omitempty"`
	Output  string           `json:"output,omitempty"`
	IsError bool             `json:"isError,omitempty"`
	Edits   []tools.EditInfo `json:"edits,omitempty"`
	Usage   *Usage           `json:"usage,omitempty"`
	// Summary is, for EventCompact, the summary that replaced older turns.
	Summary string   `json:"summary,omitempty"`
	Run     *RunInfo `json:"run,omitempty"`
	// Rules names the rules files (AGENTS.md …) the system prompt carries.
	Rules []string `json:"rules,omitempty"`
}

// Outcome is how a run ended.
type Outcome struct {
	Answer string // the model's final text
	Steps  int
	Usage  Usage
	// Messages is the conversation as it stands at the end (the system
	// prompt excluded): what Runner.Reply continues.
	Messages []Message
}

// Runner runs tasks. One Runner serves many runs; each run gets its own
// filestate.FileStates in its context (the caller may put one there
// first, e.g. the LSP's, seeded with the editor's open buffers).
type Runner struct {
	Registry *tools.Registry
	Config   config.Config
	// WorkRoot returns the primary work root, read at each run.
	WorkRoot func() string
	// Provider, if set, is used instead of the one Config names (tests,
	// benchmarks, embedders with their own transport).
	Provider Provider
	// Headless is true for runs from the command line (cb-ls run): the
	// system prompt then does not speak of an editor.
	Headless bool
	// Files, if set, reads project files for the run's own context: the
	// rules files (AGENTS.md …) and @-mentioned files. Nil reads none.
	Files ProjectFiles
}
