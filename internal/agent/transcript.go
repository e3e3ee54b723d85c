package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// transcriptOutputMax bounds one tool output in the transcript: enough
// to follow the run, without copying whole files once per read.
const transcriptOutputMax = 4000

// transcript builds the run's markdown as it goes. The API key is never
// written; anything that looks like it is redacted at the end.
type transcript struct {
	b   strings.Builder
	key string
}

func newTranscript(cmd config.Command, task Task, cfg config.Config, workRoot string) *transcript {
	t := &transcript{key: cfg.APIKey}
	fmt.Fprintf(&t.b, "# %s\n\n", cmd.Title)
	if task.Path != "" {
		fmt.Fprintf(&t.b, "- File: `%s`", displayPath(task.Path, workRoot))
		if task.StartLine > 0 {
			fmt.Fprintf(&t.b, " lines %d-%d", task.StartLine, max(task.StartLine, task.EndLine))
		}
		t.b.WriteString("\n")
	}
	if workRoot != "" {
		fmt.Fprintf(&t.b, "- Workspace: `%s`\n", workRoot)
	}
	// Provider, model and endpoint only: never the key.
	fmt.Fprintf(&t.b, "- Model: %s `%s` at %s\n", cfg.Provider, cfg.Model, cfg.BaseURL)
	return t
}

// rules names the rules files the system prompt carries.
func (t *transcript) rules(labels []string) {
	if len(labels) > 0 {
		fmt.Fprintf(&t.b, "- Rules: `%s`\n", strings.Join(labels, "`, `"))
	}
}

// note records what the loop did on its own (trimming, compaction).
func (t *transcript) note(text string) { fmt.Fprintf(&t.b, "\n> %s\n", text) }

// compacted records the summary that replaced older turns.
func (t *transcript) compacted(summary string) {
	fmt.Fprintf(&t.b, "\n**Summary that replaced the older turns:**\n\n%s\n", strings.TrimSpace(summary))
}

func (t *transcript) user(text string) {
	fmt.Fprintf(&t.b, "\n## User\n\n%s\n", text)
}

func (t *transcript) step(n int) { fmt.Fprintf(&t.b, "\n## Step %d\n", n) }

func (t *transcript) assistant(text string) {
	if strings.TrimSpace(text) != "" {
		fmt.Fprintf(&t.b, "\n%s\n", strings.TrimSpace(text))
	}
}

func (t *transcript) call(c ToolCall) {
	args := string(c.Args)
	var v any
	if json.Unmarshal(c.Args, &v) == nil {
		if pretty, err := json.MarshalIndent(v, "", "  "); err == nil {
			args = string(pretty)
		}
	}
	fence := fenceFor(args)
	fmt.Fprintf(&t.b, "\n**→ %s** `%s`\n%sjson\n%s\n%s\n", c.Name, c.ID, fence, args, fence)
}

func (t *transcript) result(c ToolCall, r tools.Result) {
	label := "result"
	if r.IsError {
		label = "error"
	}
	out := truncateText(r.Output, transcriptOutputMax)
	if r.Edit != nil && r.Edit.Diff != "" {
		fmt.Fprintf(&t.b, "\n**← %s %s** `%s` +%d -%d\n", c.Name, label, r.Edit.Rel, r.Edit.Added, r.Edit.Removed)
		out = truncateText(r.Edit.Diff, transcriptOutputMax)
		fence := fenceFor(out)
		fmt.Fprintf(&t.b, "%sdiff\n%s\n%s\n", fence, strings.TrimRight(out, "\n"), fence)
		return
	}
	fence := fenceFor(out)
	fmt.Fprintf(&t.b, "\n**← %s %s**\n%s\n%s\n%s\n", c.Name, label, fence, strings.TrimRight(out, "\n"), fence)
}

func (t *transcript) finish(out Outcome, err error) string {
	t.b.WriteString("\n## Outcome\n\n")
	switch {
	case err == nil:
		t.b.WriteString("Done")
	case errors.Is(err, ErrStepLimit):
		fmt.Fprintf(&t.b, "Stopped: %v", err)
	default:
		fmt.Fprintf(&t.b, "Failed: %v", err)
	}
	fmt.Fprintf(&t.b, " after %d steps; %s.\n", out.Steps, out.Usage)
	return redact(t.b.String(), t.key)
}
