package acp

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/mcp"
	"github.com/catbuddy/cb-ls/internal/session"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// RunOptions are the command line's say in every session's run.
type RunOptions struct {
	// Mode is what the agent may touch (guard.ParseMode).
	Mode guard.Mode
	// TrustProject applies the project's settings that need trust.
	TrustProject bool
	// Over are the command line's settings above the files.
	Over config.Config
}

// runEnv is a session's run: the guard over its folder, the registry and
// the tools' context, built over the session's workspace and approver.
type runEnv struct {
	s     *acpSession
	opts  RunOptions
	guard *guard.PathGuard
	reg   *tools.Registry
	tc    *tools.ToolContext
}

// assemble builds s's run.
func assemble(ctx context.Context, s *acpSession, servers []sdk.McpServer) (*runEnv, error) {
	opts := s.a.opts.Run
	g, err := guard.New([]string{s.root}, opts.Mode)
	if err != nil {
		return nil, sdk.NewInvalidParams(errorData(err))
	}
	r := &runEnv{s: s, opts: opts, guard: g, reg: tools.NewRegistry()}
	cfg, err := r.config(ctx)
	if err != nil {
		return nil, err
	}
	r.tc = &tools.ToolContext{Guard: g, Workspace: s.ws, Options: tools.OptionsFrom(cfg.Tools), Approver: approver{s}}
	if err := tools.RegisterBuiltins(r.reg, r.tc); err != nil {
		return nil, sdk.NewInternalError(errorData(err))
	}
	if len(servers) > 0 {
		s.a.log.Warn("acp: the client's MCP servers are not started yet", "count", len(servers))
	}
	return r, nil
}

func (r *runEnv) registry() *tools.Registry { return r.reg }

func (r *runEnv) resolve(path string) (guard.Path, error) { return r.guard.Resolve(path) }

// config is the configuration of a turn, read afresh: the user may have
// changed a file or trusted the project since.
func (r *runEnv) config(ctx context.Context) (config.Config, error) {
	l, err := config.Load(config.LoadOptions{Root: r.s.root, TrustProject: r.opts.TrustProject, Over: []config.Config{r.opts.Over}})
	if err != nil {
		return config.Config{}, sdk.NewInvalidParams(errorData(err))
	}
	return l.Config, nil
}

// rememberAllow stores an "Always allow" answer as the user's rule.
func (r *runEnv) rememberAllow(ctx context.Context, prefix string) {
	path, err := config.AddExecAllowRule(prefix)
	if err != nil {
		r.s.update(ctx, sdk.UpdateAgentThoughtText(fmt.Sprintf("%q is allowed for this session only: %v", prefix, err)))
		return
	}
	r.s.update(ctx, sdk.UpdateAgentThoughtText(fmt.Sprintf("Commands starting with %q are now always allowed (tools.exec.allow in %s).", prefix, path)))
}

func (r *runEnv) close() {}

// turn runs one prompt: the run's first task, or a reply to its
// conversation; then stores the turn beside every other front end's.
func (r *runEnv) turn(ctx context.Context, in turnInput, cfg config.Config) (agent.Outcome, error) {
	s := r.s
	ctx = filestate.NewLedgerContext(filestate.NewContext(ctx, s.states), s.ledger)
	runner := &agent.Runner{Registry: r.reg, Config: cfg, WorkRoot: r.guard.WorkRoot, Files: r.tc}
	rep := &reporter{s: s, ctx: ctx, window: agent.ContextWindow(cfg)}
	var changed []string
	emit := func(ev agent.Event) {
		if ev.Edit != nil && !ev.IsError && !slices.Contains(changed, ev.Edit.Rel) {
			changed = append(changed, ev.Edit.Rel)
		}
		rep.event(ev)
	}
	s.mu.Lock()
	conv, log, turns, prior, command := s.conv, s.log, s.turns, s.prior, s.command
	s.mu.Unlock()
	var (
		out agent.Outcome
		err error
		tr  *session.Transcript
	)
	header := session.TranscriptHeader{Model: cfg.Model, Input: in.task.Input, Started: time.Now()}
	if log == nil {
		command = in.command
		if command == "" {
			command = config.CommandAsk
		}
		cmd, _ := config.FindCommand(cfg, command)
		h := session.Header{RunID: s.id, Command: cmd.ID, Title: cmd.Title, Path: in.task.Path, File: s.rel(in.task.Path),
			Input: in.task.Input, Started: header.Started, Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, MaxSteps: cfg.MaxSteps}
		log = session.NewLog(s.root, h)
		header.RunID, header.Command, header.Title, header.File = s.id, cmd.ID, cmd.Title, h.File
		tr = session.NewTranscript(header)
		in.task.Command = command
		out, err = runner.Run(ctx, in.task, func(ev agent.Event) { tr.Add(ev); emit(ev) })
	} else {
		text := in.text
		if in.command != "" {
			if cmd, ok := config.FindCommand(cfg, in.command); ok {
				text = agent.TaskPrompt(cmd, in.task, s.root)
			}
		}
		header.RunID, header.Command = s.id, command
		header.Title = fmt.Sprintf("%s — reply %d", log.Header().Title, turns)
		tr = session.NewTranscript(header)
		out, err = runner.Reply(ctx, command, conv, text, func(ev agent.Event) { tr.Add(ev); emit(ev) })
		if len(out.Messages) == 0 {
			out.Messages = conv
		}
	}
	t := session.Turn{Input: in.task.Input, Outcome: "done", Steps: out.Steps, Usage: out.Usage, Files: changed, Ended: time.Now()}
	status := "done"
	switch {
	case ctx.Err() != nil:
		t.Outcome, t.Error, status = "cancelled", "cancelled by the user", "cancelled"
	case err != nil:
		t.Outcome, t.Error, status = "error", err.Error(), "error"
	}
	text := session.JoinTurns(prior, tr.Finish(status, out, err))
	if len(out.Messages) > 0 {
		if serr := log.AppendTurn(out.Messages, t, cfg.APIKey); serr != nil {
			s.a.log.Error("acp: turn not stored", "session", s.id, "error", serr)
		} else if _, terr := log.WriteTranscript(text, cfg.APIKey); terr != nil {
			s.a.log.Error("acp: transcript not written", "session", s.id, "error", terr)
		}
	}
	s.mu.Lock()
	s.conv, s.log, s.turns, s.prior, s.command = out.Messages, log, turns+1, text, command
	s.mu.Unlock()
	return out, err
}

// keyHint says where cb-ls looks for a key, in every message about one.
const keyHint = "set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment cb-ls acp starts with " +
	"(Zed: \"env\" of the agent server in settings.json), or apiKey in ~/.config/catbuddy/config.json"

// checkKey refuses a session whose model needs a key none was found for,
// naming where to put one. A local server (Ollama, any baseUrl of the
// user's) may need none.
func (s *acpSession) checkKey() error {
	cfg, err := s.run.config(context.Background())
	if err != nil {
		return err
	}
	if cfg.APIKey != "" {
		return nil
	}
	switch {
	case cfg.Provider == "anthropic":
		return sdk.NewAuthRequired(map[string]string{"error": "no API key for Anthropic: " + keyHint})
	case cfg.Provider == "openai" && cfg.BaseURL == config.DefaultOpenAIURL:
		return sdk.NewAuthRequired(map[string]string{"error": "no API key for OpenAI: " + keyHint})
	}
	return nil
}

var _ = os.Getenv

// trustQuestion is the trust question for the session's folder, and
// whether it needs asking (TEMPORARY copy of lsp's, until both share it).
func (r *runEnv) trustQuestion() (string, bool) {
	root := r.s.root
	loaded, err := config.Load(config.LoadOptions{Root: root, Over: []config.Config{r.opts.Over}})
	if err != nil || loaded.Trusted {
		return "", false
	}
	var settings []string
	for _, ig := range loaded.Ignored {
		if strings.HasPrefix(ig.Reason, config.ReasonNeedsTrust) {
			settings = append(settings, ig.Key+" = "+ig.Value)
		}
	}
	servers, _ := mcp.ProjectServers(root)
	if len(settings) == 0 {
		if ok, _ := config.DefaultTrustStore().TrustedRoot(root); ok {
			return "", false
		}
	}
	if len(servers)+len(settings) == 0 {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Trust the project %s?\n", root)
	b.WriteString("Its .catbuddy files ask for more than a project gets by default.\n")
	if len(servers) > 0 {
		b.WriteString("\nMCP servers it would start, as you:\n")
		for _, l := range servers {
			b.WriteString("  • " + l + "\n")
		}
	}
	if len(settings) > 0 {
		b.WriteString("\nSettings it would apply:\n")
		endpoint := false
		for _, l := range settings {
			b.WriteString("  • " + l + "\n")
			endpoint = endpoint || strings.HasPrefix(l, "baseUrl ") || strings.HasPrefix(l, "provider ")
		}
		if endpoint {
			b.WriteString("(Your API key goes to a baseUrl set here.)\n")
		}
	}
	b.WriteString("\nNot now: none of this runs or applies; your own settings are used. " +
		"Change it later with Agent: Trust This Project… (VS Code) or :CatbuddyTrust (Neovim).")
	return b.String(), true
}

// trustChanged applies a new trust decision to the session's run.
func (r *runEnv) trustChanged() {}
