package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/tools"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

// Transcript renders a run's turn as markdown from its events: the one
// renderer of transcripts. The agent reports everything a transcript
// says as events (the settings it runs with, each user message, steps,
// text, tool calls and results, compaction), so what the user reads is
// what the front end saw, whichever front end it was; the run assembly
// (internal/app) writes it beside the run's session file
// (Log.WriteTranscript). It is not safe for concurrent use.
type Transcript struct {
	b       strings.Builder
	inText  bool   // the last thing written was model text (deltas join up)
	maxTool int    // tool outputs are cut to this many bytes
	quote   string // the user's input, quoted below the header lines
	input   string // the input itself: a user message that is only this is not repeated
}

// NewTranscript starts the transcript of a run's turn.
func NewTranscript(header TranscriptHeader) *Transcript {
	t := &Transcript{maxTool: 8 << 10}
	fmt.Fprintf(&t.b, "# %s\n\n", header.Title)
	fmt.Fprintf(&t.b, "- run: `%s`\n- command: `%s`\n", header.RunID, header.Command)
	if header.File != "" {
		fmt.Fprintf(&t.b, "- file: `%s`", header.File)
		if header.StartLine > 0 {
			fmt.Fprintf(&t.b, " lines %d–%d", header.StartLine, header.EndLine)
		}
		t.b.WriteString("\n")
	}
	if header.Model != "" {
		fmt.Fprintf(&t.b, "- model: `%s`\n", header.Model)
	}
	fmt.Fprintf(&t.b, "- started: %s\n", header.Started.UTC().Format(time.RFC3339))
	if header.Input != "" {
		t.input = strings.TrimSpace(header.Input)
		t.quote = fmt.Sprintf("\n> %s\n", strings.ReplaceAll(header.Input, "\n", "\n> "))
	}
	return t
}

// endHeader writes the input's quote once the start event's header lines
// are in.
func (t *Transcript) endHeader() {
	t.b.WriteString(t.quote)
	t.quote = ""
}

// TranscriptHeader is what a transcript says about its run before any
// event.
type TranscriptHeader struct {
	RunID, Command, Title string
	File                  string
	StartLine, EndLine    int
	Model                 string
	Input                 string
	Started               time.Time
}

// Add renders one event.
func (t *Transcript) Add(ev agent.Event) {
	if ev.Kind != agent.EventStart {
		t.endHeader()
	}
	switch ev.Kind {
	case agent.EventStart:
		if r := ev.Run; r != nil {
			if r.Workspace != "" {
				fmt.Fprintf(&t.b, "- workspace: `%s`\n", r.Workspace)
			}
			// Provider, model and endpoint only: never the key.
			fmt.Fprintf(&t.b, "- endpoint: %s at %s\n", r.Provider, r.BaseURL)
		}
		t.rules(ev.Rules)
	case agent.EventRules:
		t.endText()
		t.b.WriteString("\n")
		t.rules(ev.Rules)
	case agent.EventUser:
		t.endText()
		if text := strings.TrimSpace(ev.Text); text != t.input {
			fmt.Fprintf(&t.b, "\n## User\n\n%s\n", text)
		}
	case agent.EventStep:
		t.endText()
		fmt.Fprintf(&t.b, "\n## Step %d\n\n", ev.Step)
	case agent.EventText:
		t.inText = true
		t.b.WriteString(ev.Text)
	case agent.EventToolCall:
		t.endText()
		if p, ok := tools.ParsePlan(ev.Args); ok && ev.Tool == tools.PlanToolName {
			fmt.Fprintf(&t.b, "**Plan:**\n\n%s\n", p.Checklist())
			return
		}
		fmt.Fprintf(&t.b, "**%s** `%s`\n\n", ev.Tool, compactJSON(ev.Args, 400))
	case agent.EventToolResult:
		t.endText()
		if ev.Tool == tools.PlanToolName && !ev.IsError {
			return // the plan above says it all
		}
		status := "result"
		if ev.IsError {
			status = "error"
		}
		out := ev.Output
		if n := CutIndex(out, t.maxTool); n < len(out) {
			out = out[:n] + fmt.Sprintf("…\n(%d bytes cut)", len(out)-n)
		}
		fmt.Fprintf(&t.b, "%s of %s:\n\n%s\n", status, ev.Tool, fence(out, ""))
		// Each diff, unless the output showed it already.
		for _, e := range ev.Edits {
			if e.Diff != "" && !strings.Contains(ev.Output, strings.TrimRight(e.Diff, "\n")) {
				fmt.Fprintf(&t.b, "\n%s +%d -%d:\n\n%s\n", e.Rel, e.Added, e.Removed, fence(e.Diff, "diff"))
			}
		}
		t.b.WriteString("\n")
	case agent.EventUsage:
		// Totals go in the footer; per-turn usage would only add noise.
	case agent.EventCompact:
		t.endText()
		fmt.Fprintf(&t.b, "> %s\n\n", ev.Text)
		if ev.Summary != "" {
			fmt.Fprintf(&t.b, "**Summary that replaced the older turns:**\n\n%s\n\n", ev.Summary)
		}
	}
}

// rules names the rules files the system prompt carries.
func (t *Transcript) rules(labels []string) {
	if len(labels) > 0 {
		fmt.Fprintf(&t.b, "- rules: `%s`\n", strings.Join(labels, "`, `"))
	}
}

func (t *Transcript) endText() {
	if t.inText {
		t.b.WriteString("\n\n")
		t.inText = false
	}
}

// Finish returns the whole markdown of the ended turn: what its events
// said, then the outcome, the tokens, the error and the answer.
func (t *Transcript) Finish(status string, out agent.Outcome, runErr error) string {
	t.endHeader()
	var b strings.Builder
	b.WriteString(strings.TrimRight(t.b.String(), "\n"))
	fmt.Fprintf(&b, "\n\n---\n\n**Outcome:** %s", status)
	if out.Steps > 0 {
		fmt.Fprintf(&b, " after %d step(s)", out.Steps)
	}
	if out.Usage.InputTokens+out.Usage.OutputTokens > 0 {
		fmt.Fprintf(&b, "; tokens in %d, out %d", out.Usage.InputTokens, out.Usage.OutputTokens)
		if c := out.Usage.CachedInputTokens; c > 0 {
			fmt.Fprintf(&b, ", %d of the input read from the prompt cache", c)
		}
	}
	b.WriteString("\n")
	if runErr != nil {
		fmt.Fprintf(&b, "\n**Error:** %s\n", runErr)
	}
	if out.Answer != "" {
		fmt.Fprintf(&b, "\n## Answer\n\n%s\n", out.Answer)
	}
	return b.String()
}

// Snapshot returns the transcript so far, for a run still going on. It
// does not disturb the log: text deltas may still follow.
func (t *Transcript) Snapshot(status string) string {
	return strings.TrimRight(t.b.String()+t.quote, "\n") + "\n\n---\n\n**Status:** " + status + "\n"
}

// JoinTurns appends a turn's transcript to those of the run's earlier
// turns (prior, "" for the first), as the run's one markdown file.
func JoinTurns(prior, turn string) string {
	if prior = strings.TrimRight(prior, "\n"); prior == "" {
		return turn
	}
	return prior + "\n\n---\n\n" + turn
}

// TranscriptPath is where the markdown transcript of the run whose
// session file is logPath goes: beside it, with .md for .jsonl.
func TranscriptPath(logPath string) string {
	return strings.TrimSuffix(logPath, ".jsonl") + ".md"
}

// WriteTranscript writes text as the run's transcript, replacing the one
// written before (atomically: a reader sees the old or the new text), and
// returns its path. Any secret in secrets is blanked first: keys must
// never reach a file, even if a model or tool echoed one.
func (l *Log) WriteTranscript(text string, secrets ...string) (string, error) {
	for _, s := range secrets {
		if len(s) >= 8 { // shorter strings would blank ordinary words
			text = strings.ReplaceAll(text, s, "[redacted]")
		}
	}
	if l.err != nil {
		return "", l.err
	}
	path := TranscriptPath(l.Path)
	// Opened from the state directory down without following a symlink.
	d, err := userstate.OpenPath(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	defer d.Close()
	name := filepath.Base(path)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := ".tmp-" + name + "." + hex.EncodeToString(rnd[:])
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	defer d.Remove(tmp) // after a successful rename this is a no-op
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", fmt.Errorf("transcript: write %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("transcript: write %s: %w", tmp, err)
	}
	if err := d.Rename(tmp, name); err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	return path, nil
}

// compactJSON renders raw tool arguments on one line, cut to max bytes.
func compactJSON(raw json.RawMessage, max int) string {
	var v any
	s := string(raw)
	if json.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			s = string(b)
		}
	}
	return strings.ReplaceAll(Cut(s, max), "`", "'")
}

// fence wraps s in a code fence longer than any backtick run inside it.
func fence(s, lang string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + ticks
}

// Cut shortens s to at most max bytes (plus an ellipsis) without
// splitting a UTF-8 sequence.
func Cut(s string, max int) string {
	if n := CutIndex(s, max); n < len(s) {
		return s[:n] + "…"
	}
	return s
}

// CutIndex returns the largest n <= max at which s can be cut on a rune
// boundary (len(s) if s is short enough).
func CutIndex(s string, max int) int {
	if len(s) <= max {
		return len(s)
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}
