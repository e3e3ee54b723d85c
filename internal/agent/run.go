package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// ErrStepLimit is returned (with a complete Outcome, whose Answer is the
// model's summary) when the model still called tools after MaxSteps turns.
var ErrStepLimit = errors.New("step limit reached")

// ErrRefused is returned (with a complete Outcome, whose Answer is
// whatever the model said) when the model declined to answer: the
// provider's refusal (Anthropic "refusal", OpenAI "content_filter" or a
// message refusal). Its text names the provider's stop reason.
var ErrRefused = errors.New("the model declined to answer")

// ErrUnknownCommand is returned for a Task.Command that is neither a
// built-in nor a configured custom command.
var ErrUnknownCommand = errors.New("unknown command")

// summariseText is the last user message when the step limit is reached.
const summariseText = "You have reached the step limit for this task. Stop now: do not call any more tools. " +
	"Summarise what you found, what you changed, and what is left to do."

// Run executes task until the model answers without tool calls, the
// step limit, or ctx ends. emit (may be nil) receives events in order,
// from the calling goroutine. On cancellation the error is ctx's and the
// Outcome holds what the run did so far.
func (r *Runner) Run(ctx context.Context, task Task, emit func(Event)) (Outcome, error) {
	return r.converse(ctx, task, func(cmd config.Command, workRoot string) []Message {
		return []Message{{Role: RoleUser, Text: TaskPrompt(cmd, task, workRoot) + mentionedFiles(ctx, r.Files, task.Input, workRoot)}}
	}, emit)
}

// converse runs the loop on the conversation that start returns (a new
// task's prompt, or a previous conversation and a reply). Outcome.Messages
// is the conversation when it ends.
func (r *Runner) converse(ctx context.Context, task Task, start func(cmd config.Command, workRoot string) []Message, emit func(Event)) (Outcome, error) {
	cfg := r.Config.WithDefaults()
	if emit == nil {
		emit = func(Event) {}
	}
	prov := r.Provider
	if prov == nil {
		var err error
		if prov, err = NewProvider(cfg); err != nil {
			return Outcome{}, err
		}
	}
	cmdID := task.Command
	if cmdID == "" {
		cmdID = config.CommandAsk
	}
	cmd, ok := config.FindCommand(cfg, cmdID)
	if !ok {
		return Outcome{}, fmt.Errorf("%w %q", ErrUnknownCommand, task.Command)
	}
	if filestate.FromContext(ctx) == nil {
		ctx = filestate.NewContext(ctx, filestate.New())
	}
	// The tools follow this run's settings, not those they were built
	// with: a project trusted (or untrusted) since applies from here on.
	ctx = tools.WithOptions(ctx, tools.OptionsFrom(cfg.Tools))
	workRoot := ""
	if r.WorkRoot != nil {
		workRoot = r.WorkRoot()
	}

	specs, readOnly := r.toolSpecs(ctx, cmd)
	l := &loop{
		r: r, cfg: cfg, prov: prov, emit: emit, readOnly: readOnly,
		failures: map[string]int{},
	}
	env := detectEnvironment(ctx, workRoot, r.Headless)
	l.ctx = newRunContext(ctx, r.Files, workRoot, SystemPrompt(workRoot, cmd.ReadOnly, env), task.Path)
	req := ModelRequest{
		System:   l.ctx.system(),
		Messages: start(cmd, workRoot),
		Tools:    specs,
	}
	window, err := runWindow(ctx, cfg, req)
	if err != nil {
		return Outcome{}, err
	}
	l.budget, l.states = newBudget(window), filestate.FromContext(ctx)
	l.stale.seed(req.Messages, l.states) // a reply's earlier reads
	// Provider, model and endpoint only: never the key.
	emit(Event{Kind: EventStart, Run: &RunInfo{Workspace: workRoot, Provider: cfg.Provider, Model: cfg.Model,
		BaseURL: cfg.BaseURL}, Rules: l.ctx.rules.labels()})
	emit(Event{Kind: EventUser, Text: req.Messages[len(req.Messages)-1].Text})
	out, err := l.run(ctx, req)
	out.Usage.add(l.extraUsage)
	return out, err
}

// toolSpecs lists the tools offered for cmd: all of them, or only the
// read-only ones for answer-only commands, each described for this run
// (ctx carries its settings). readOnly is the set offered.
func (r *Runner) toolSpecs(ctx context.Context, cmd config.Command) ([]tools.Spec, map[string]bool) {
	var specs []tools.Spec
	readOnly := map[string]bool{}
	if r.Registry == nil {
		return nil, readOnly
	}
	for _, t := range r.Registry.List() {
		if cmd.ReadOnly && !t.ReadOnly {
			continue
		}
		specs = append(specs, t.SpecFor(ctx))
		if t.ReadOnly {
			readOnly[t.Name] = true
		}
	}
	return specs, readOnly
}

// loop is one run's state.
type loop struct {
	r        *Runner
	cfg      config.Config
	prov     Provider
	emit     func(Event)
	readOnly map[string]bool // tools that may run concurrently
	ctx      *runContext     // what the model sees besides the conversation (context.go)
	// Long runs (compact.go): the window's budget, the run's FileStates
	// (forgotten after compaction), compaction's own usage.
	budget     *budget
	states     *filestate.FileStates
	extraUsage Usage
	step       int
	stale      staleReads // reads whose files changed since (stale.go)
	// failures counts identical failing calls (name + arguments), for the
	// loop breaker. Only failing calls are kept, so it stays small.
	mu       sync.Mutex
	failures map[string]int
}

func (l *loop) run(ctx context.Context, req ModelRequest) (out Outcome, err error) {
	defer func() { out.Messages = req.Messages }()
	maxSteps := l.cfg.MaxSteps
	for step := 1; ; step++ {
		final := step > maxSteps
		if final {
			// The model kept calling tools: one last turn, with no tools,
			// to get a summary instead of silence.
			req.Tools = nil
			last := &req.Messages[len(req.Messages)-1]
			last.Text = summariseText
			l.emit(Event{Kind: EventUser, Step: step, Text: summariseText})
		}
		out.Steps, l.step = step, step
		l.prepare(ctx, step, &req)
		l.emit(Event{Kind: EventStep, Step: step})
		resp, err := l.completeFitting(ctx, step, &req)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return out, err
		}
		out.Usage.add(resp.Usage)
		u := resp.Usage
		l.emit(Event{Kind: EventUsage, Step: step, Usage: &u})
		if resp.Refused {
			// The model declined: none of its calls run, and the
			// conversation keeps only its text, so a reply can go on.
			req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text})
			out.Answer = resp.Text
			return out, fmt.Errorf("%w (%s)", ErrRefused, resp.Stop)
		}
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls})

		if final || len(resp.ToolCalls) == 0 {
			out.Answer = resp.Text
			if final {
				return out, fmt.Errorf("%w (%d steps)", ErrStepLimit, maxSteps)
			}
			return out, nil
		}
		results, err := l.execute(ctx, step, resp.ToolCalls)
		req.Messages = append(req.Messages, Message{Role: RoleUser, ToolResults: results})
		if err != nil {
			return out, err
		}
	}
}

// complete runs one model turn. A stream cut mid-way (ErrBadResponse)
// is retried once: a model call has no side effects, and the SDKs retry
// only failures that happen before the answer starts.
func (l *loop) complete(ctx context.Context, step int, req ModelRequest) (ModelResponse, error) {
	onText := func(delta string) { l.emit(Event{Kind: EventText, Step: step, Text: delta}) }
	resp, err := l.prov.Complete(ctx, req, onText)
	if err != nil && errors.Is(err, ErrBadResponse) && ctx.Err() == nil {
		slog.Warn("agent: model answer cut off; retrying once", "step", step, "error", err)
		resp, err = l.prov.Complete(ctx, req, onText)
	}
	return resp, err
}

// callKey identifies a call for the loop breaker.
func callKey(c ToolCall) string { return c.Name + "\x00" + string(c.Args) }

// maxRepeats is how many identical failing calls run before the model
// gets a hint instead.
const maxRepeats = 2

// execute runs one turn's calls: in order, except that consecutive
// read-only calls run concurrently. Results keep the calls' order and
// ids; events are emitted from this goroutine, in call order.
func (l *loop) execute(ctx context.Context, step int, calls []ToolCall) ([]ToolResult, error) {
	results := make([]ToolResult, len(calls))
	for i := 0; i < len(calls); {
		j := i + 1
		if l.readOnly[calls[i].Name] {
			for j < len(calls) && l.readOnly[calls[j].Name] {
				j++
			}
		}
		batch := calls[i:j]
		for _, c := range batch {
			l.emit(Event{Kind: EventToolCall, Step: step, Tool: c.Name, CallID: c.ID, Args: c.Args})
		}
		res := make([]tools.Result, len(batch))
		errs := make([]error, len(batch))
		if len(batch) == 1 {
			res[0], errs[0] = l.call(ctx, batch[0])
		} else {
			done := make(chan struct{}, len(batch))
			for k, c := range batch {
				go func() {
					res[k], errs[k] = l.call(ctx, c)
					done <- struct{}{}
				}()
			}
			for range batch {
				<-done
			}
		}
		for k, c := range batch {
			r := res[k]
			results[i+k] = ToolResult{CallID: c.ID, Name: c.Name, Output: r.Output, IsError: r.IsError}
			if r.Read != nil && l.states != nil {
				// Noted before the next batch runs, so Changes is the file's
				// count at the read: this batch was read-only or one call.
				m := mark(results[i+k], r.Read, l.states.Changes(r.Read.Path))
				results[i+k].Read = m
				l.stale.note(step, c.ID, m)
			}
			l.emit(Event{Kind: EventToolResult, Step: step, Tool: c.Name, CallID: c.ID, Output: r.Output, IsError: r.IsError, Edits: r.Edits})
		}
		for _, err := range errs {
			if err != nil {
				// The run is over (ctx ended). Calls not started still get a
				// result, so the conversation stays well-formed.
				for k := j; k < len(calls); k++ {
					results[k] = ToolResult{CallID: calls[k].ID, Name: calls[k].Name, Output: "Error: cancelled before it ran", IsError: true}
				}
				return results, err
			}
		}
		i = j
	}
	return results, nil
}

// call runs one tool call through the registry, unless the same call
// already failed maxRepeats times: then the model gets a hint instead.
func (l *loop) call(ctx context.Context, c ToolCall) (tools.Result, error) {
	key := callKey(c)
	if n := l.repeats(key); n >= maxRepeats {
		return tools.Errorf("this exact %s call already failed %d times with the same arguments; it was not run again. "+
			"Read the previous error, then change the arguments (for edit_file: read the file again and copy old_string exactly, with more context) or take another approach.",
			c.Name, n), nil
	}
	if l.r.Registry == nil {
		return tools.Errorf("no tools are available"), nil
	}
	res, err := l.r.Registry.Execute(ctx, c.Name, c.Args)
	if err != nil {
		return res, err
	}
	l.record(key, res.IsError)
	return res, nil
}

// repeats and record may be called from concurrent read-only calls.
func (l *loop) repeats(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failures[key]
}

func (l *loop) record(key string, failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if failed {
		l.failures[key]++
	} else {
		delete(l.failures, key)
	}
}
