package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// methodRunEvent is the custom notification streaming a run's events.
const methodRunEvent = "catbuddy/runEvent"

// maxEventOutput bounds a tool output carried by a runEvent: clients show
// a summary, and the full text is in the transcript.
const maxEventOutput = 16 << 10

// runReporter renders one run's events for the editor: work-done
// progress, catbuddy/runEvent, and at the end showMessage/showDocument.
type runReporter struct {
	s        *Server
	r        *run
	command  config.Command // this turn's: once it ended, a reply may change r's
	turn     int
	progress *Progress
	pr       *progressReporter
	stopWait func()            // ends the waiting messages
	lastCall map[string]string // call id → "tool target", for the result's report
	// mark is the run's ledger at the turn's start: the files recorded
	// after it are the ones this turn changed in the user's files.
	mark uint64
}

// newRunReporter reports r's current turn. It must be called before the
// turn can end (a reply may then start the next one on the same r).
func newRunReporter(s *Server, r *run) *runReporter {
	return &runReporter{s: s, r: r, command: r.Command, turn: r.Turn, lastCall: map[string]string{}, mark: r.ledger.Mark()}
}

// runEvent is the payload of catbuddy/runEvent; see docs/PROTOCOL.md.
type runEvent struct {
	RunID string `json:"runId"`
	Kind  string `json:"kind"`
	Step  int    `json:"step,omitempty"`
	// start
	Command string  `json:"command,omitempty"`
	URI     uri.URI `json:"uri,omitempty"`
	Title   string  `json:"title,omitempty"`
	Turn    int     `json:"turn,omitempty"`  // 1 for the first request, 2… for replies
	Input   string  `json:"input,omitempty"` // the user's text for this turn
	// text
	Text string `json:"text,omitempty"`
	// tool_call, tool_result
	Tool    string          `json:"tool,omitempty"`
	CallID  string          `json:"callId,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Output  *string         `json:"output,omitempty"`
	IsError bool            `json:"isError,omitempty"`
	Edit    *runEventEdit   `json:"edit,omitempty"`
	// Edits are every file the write changed (apply_patch changes
	// several); Edit is the first of them.
	Edits []runEventEdit `json:"edits,omitempty"`
	// usage
	Usage *agent.Usage `json:"usage,omitempty"`
	// files_changed (Command is the command line)
	Files []runEventFile `json:"files,omitempty"`
	// end
	Outcome       string  `json:"outcome,omitempty"`
	Answer        string  `json:"answer,omitempty"`
	Error         string  `json:"error,omitempty"`
	TranscriptURI uri.URI `json:"transcriptUri,omitempty"`
	// Changed (end) are the files the turn changed in the user's files
	// (what catbuddy.undoRun puts back): edits accepted, hunks kept,
	// commands that wrote; left out when there are none.
	Changed []string `json:"changed,omitempty"`
	// Pending (end) counts the run's files whose changes are still
	// pending. Never nil on an end event: its presence says that Changed
	// is the server's account.
	Pending *int `json:"pending,omitempty"`
}

// turnFiles is what an end event says of the files: those the turn
// changed in the user's files, and how many of the run's files are still
// pending.
type turnFiles struct {
	changed []string
	pending int
}

// runEventEdit is the diff metadata of a write, as clients render it.
type runEventEdit struct {
	URI     uri.URI `json:"uri"`
	Path    string  `json:"path"`
	Added   int     `json:"added"`
	Removed int     `json:"removed"`
	Diff    string  `json:"diff,omitempty"`
}

func (rep *runReporter) send(ctx context.Context, ev runEvent) {
	ev.RunID = rep.r.ID
	rep.s.notify(ctx, methodRunEvent, &ev)
}

// begin opens the progress, whose Cancel calls cancel (this turn's: a
// later reply gets its own), and announces the run.
func (rep *runReporter) begin(ctx context.Context, a runArgs, cancel func()) {
	r := rep.r
	msg := r.target.rel
	if r.target.rel == "" {
		msg = firstLine(a.Input, 80)
	}
	rep.progress = rep.s.startProgress(ctx, rep.command.Title, msg, true, cancel)
	rep.pr = &progressReporter{p: rep.progress, last: msg}
	every := rep.s.opts.ModelWaitReport
	if every <= 0 {
		every = DefaultModelWaitReport
	}
	rep.stopWait = rep.pr.watch(ctx, every)
	rep.send(ctx, runEvent{Kind: "start", Command: rep.command.ID, URI: r.target.uri, Title: rep.command.Title, Turn: rep.turn, Input: a.Input})
}

// event renders one agent event.
func (rep *runReporter) event(ctx context.Context, ev agent.Event) {
	switch ev.Kind {
	case agent.EventStep:
		rep.send(ctx, runEvent{Kind: "step", Step: ev.Step})
	case agent.EventText:
		rep.send(ctx, runEvent{Kind: "text", Step: ev.Step, Text: ev.Text})
	case agent.EventToolCall:
		label := toolLabel(ev.Tool, ev.Args, rep.s.displayPath)
		rep.lastCall[ev.CallID] = label
		rep.pr.report(ctx, label)
		rep.send(ctx, runEvent{Kind: "tool_call", Step: ev.Step, Tool: ev.Tool, CallID: ev.CallID, Args: ev.Args})
	case agent.EventToolResult:
		label := rep.lastCall[ev.CallID]
		delete(rep.lastCall, ev.CallID)
		if label == "" {
			label = ev.Tool
		}
		out := ev.Output
		if len(out) > maxEventOutput {
			out = out[:session.CutIndex(out, maxEventOutput)] + "\n… (cut; the transcript has it all)"
		}
		re := runEvent{Kind: "tool_result", Step: ev.Step, Tool: ev.Tool, CallID: ev.CallID, Output: &out, IsError: ev.IsError}
		switch {
		case len(ev.Edits) > 0:
			for _, e := range ev.Edits {
				rel := e.Rel
				if rel == "" {
					rel = rep.s.displayPath(e.Path)
				}
				rep.pr.report(ctx, fmt.Sprintf("%s %s +%d -%d", ev.Tool, rel, e.Added, e.Removed))
				re.Edits = append(re.Edits, runEventEdit{URI: fileuri.FromPath(e.Path), Path: rel, Added: e.Added, Removed: e.Removed, Diff: e.Diff})
			}
			// edit is the first file, for clients that read one.
			re.Edit = &re.Edits[0]
		case ev.IsError:
			rep.pr.report(ctx, label+": "+firstLine(strings.TrimPrefix(ev.Output, "Error: "), 80))
		}
		rep.send(ctx, re)
	case agent.EventUsage:
		rep.send(ctx, runEvent{Kind: "usage", Step: ev.Step, Usage: ev.Usage})
	case agent.EventCompact:
		rep.pr.report(ctx, firstLine(ev.Text, 80))
		rep.send(ctx, runEvent{Kind: "compact", Step: ev.Step, Text: ev.Text})
	}
}

// end closes the progress, shows the answer, offers the transcript and
// sends the final runEvent.
func (rep *runReporter) end(ctx context.Context, status string, out agent.Outcome, err error, transcriptPath string, files turnFiles) {
	s, r, title := rep.s, rep.r, rep.command.Title
	var tURI uri.URI
	if transcriptPath != "" {
		tURI = fileuri.FromPath(transcriptPath)
	}
	var changed []string
	for _, p := range files.changed {
		changed = append(changed, s.displayPath(p))
	}
	ev := runEvent{Kind: "end", Outcome: status, Answer: out.Answer, TranscriptURI: tURI, Step: out.Steps, Turn: rep.turn,
		Changed: changed, Pending: &files.pending}
	var progressMsg, shown string
	typ := protocol.MessageTypeInfo
	switch status {
	case "done":
		progressMsg = fmt.Sprintf("done in %d step(s)", out.Steps)
		shown = out.Answer
		if strings.TrimSpace(shown) == "" {
			shown = title + ": done (no answer text)."
		}
	case "cancelled":
		progressMsg = "cancelled"
		ev.Error = errorText(err)
		// The reason already says "cancelled …" ("cancelled by the user").
		shown = fmt.Sprintf("%s: %s.", title, ev.Error)
		if ev.Error == "" {
			shown = title + ": cancelled."
		}
	default:
		progressMsg = "failed: " + firstLine(errorText(err), 120)
		ev.Error = errorText(err)
		shown = fmt.Sprintf("%s failed: %s", title, ev.Error)
		typ = protocol.MessageTypeError
	}
	rep.stopWait()
	rep.progress.End(ctx, progressMsg)
	// A client that renders the end event itself (one notification, the
	// transcript on request) would otherwise say everything twice.
	if !s.clientShowsRunEnd() {
		s.showMessage(ctx, typ, s.withConsentNotice(shown))
		// The transcript is offered once per run, at the end of its first
		// turn: a reply continues the same file, which the editor already
		// shows or which the user closed on purpose, so reopening it after
		// every turn of a conversation would only pull it back into view.
		if tURI != "" && status != "cancelled" && rep.turn <= 1 {
			if _, err := s.showDocument(ctx, tURI, false); err != nil && !errors.Is(err, ErrUnsupported) {
				s.log.Debug("showDocument for the transcript failed", "run", r.ID, "error", err)
			}
		}
	}
	s.log.Info("run ended", "run", r.ID, "command", rep.command.ID, "outcome", status, "steps", out.Steps, "transcript", transcriptPath)
	// The end event comes last: a client that waits for it has seen
	// everything the run sent, and may reply at once.
	rep.send(ctx, ev)
	if !s.clientShowsRunEnd() {
		s.nudgeAfterEnd(r.ID)
	}
}

// nudgeAfterEnd writes window/logMessage lines after a run's end, for a
// client that shows the end from window/showMessage: Emacs 28's jsonrpc
// stops reading at the answer it waits for (eglot runs a code action's
// command with such a request) and leaves what came in the same read
// unread until the server writes again, so a quick run that asks nothing
// would end with its answer unshown. The lines are those writes
// (nudgeTimes); they need no context of the run, which has ended.
func (s *Server) nudgeAfterEnd(runID string) {
	for _, d := range nudgeTimes {
		time.AfterFunc(d, func() {
			s.logMessage(context.Background(), protocol.MessageTypeLog, "cb-ls: run "+runID+" ended")
		})
	}
}

// files is what the turn's end event says of the files: read before the
// run is released, so that a reply's next turn cannot add to it.
func (rep *runReporter) files() turnFiles {
	tf := turnFiles{changed: rep.r.ledger.ChangedSince(rep.mark)}
	if st := rep.s.pendingStore(); st != nil {
		if set, ok := st.Get(rep.r.ID); ok && set.Count() > 0 {
			tf.pending = len(set.Files())
		}
	}
	return tf
}

// toolLabel is a short description of a tool call for progress reports:
// the tool and the pattern or path it works on (grep's and glob's
// pattern says more than their path, often just ".").
func toolLabel(tool string, args json.RawMessage, display func(string) string) string {
	if tool == tools.PlanToolName {
		return planLabel(args)
	}
	var fields map[string]any
	if json.Unmarshal(args, &fields) != nil {
		return tool
	}
	for _, k := range []string{"pattern", "path", "file_path", "command", "url"} {
		if v, ok := fields[k].(string); ok && v != "" {
			if k == "path" || k == "file_path" {
				if filepath.IsAbs(v) {
					v = display(v)
				}
			}
			return tool + " " + firstLine(v, 60)
		}
	}
	return tool
}

// planLabel names where an update_plan call says the work is: "plan
// 2/5: Fix Add" (the step in progress, else the first not done).
func planLabel(args json.RawMessage) string {
	p, ok := tools.ParsePlan(args)
	if !ok {
		return tools.PlanToolName
	}
	at := -1
	for i, st := range p.Steps {
		if st.Status == tools.PlanInProgress || (at < 0 && st.Status == tools.PlanPending) {
			at = i
		}
		if st.Status == tools.PlanInProgress {
			break
		}
	}
	if at < 0 {
		return fmt.Sprintf("plan %d/%d: done", len(p.Steps), len(p.Steps))
	}
	return fmt.Sprintf("plan %d/%d: %s", at+1, len(p.Steps), firstLine(p.Steps[at].Step, 60))
}

// firstLine returns s's first line, cut to max bytes.
func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return session.Cut(s, max)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
