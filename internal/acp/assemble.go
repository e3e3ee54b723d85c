package acp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/app"
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

// runEnv is a session's run, assembled by internal/app as for every
// front end: the guard over its folder, the registry (built-in and MCP
// tools) over the session's workspace and approver, and the stored run
// its prompts are turns of.
type runEnv struct {
	s    *acpSession
	opts RunOptions
	app  *app.App
	run  *app.Run // nil until the first prompt (or session/load)
}

// assemble builds s's run and starts the user's (and a trusted
// project's) MCP servers for it.
func assemble(ctx context.Context, s *acpSession, servers []sdk.McpServer) (*runEnv, error) {
	opts := s.a.opts.Run
	// Pending: a turn's changes wait in its change set and are asked
	// about once, at its end (pending.go).
	ao := app.Options{Roots: []string{s.root}, Mode: opts.Mode, Workspace: s.ws, Approver: approver{s},
		Version: s.a.opts.Version, Logger: s.a.log, Pending: true}
	if opts.TrustProject {
		ao.ProjectTrusted = func(string) bool { return true }
	}
	// ACP clients have no bridge to their own language servers, so the
	// language tools come from the languageServers setting (the user's
	// config, a trusted project's), started lazily as headless runs do.
	l, err := config.Load(config.LoadOptions{Root: s.root, TrustProject: opts.TrustProject, Over: []config.Config{opts.Over}})
	if err != nil {
		return nil, sdk.NewInvalidParams(errorData(err))
	}
	ao.LanguageServers = l.LanguageServers
	extra, err := clientServers(servers)
	if err != nil {
		return nil, sdk.NewInvalidParams(errorData(err))
	}
	ao.MCPServers = extra
	a, err := app.New(ao)
	if err != nil {
		return nil, sdk.NewInvalidParams(errorData(err))
	}
	a.StartMCP(opts.Over)
	return &runEnv{s: s, opts: opts, app: a}, nil
}

// clientServers turns the client's mcpServers into the MCP manager's
// entries: stdio (command, args, env) and HTTP (url, headers). SSE is not
// offered in initialize and is refused.
func clientServers(servers []sdk.McpServer) (map[string]mcp.ServerConfig, error) {
	out := map[string]mcp.ServerConfig{}
	for _, sv := range servers {
		switch {
		case sv.Stdio != nil:
			env := map[string]string{}
			for _, e := range sv.Stdio.Env {
				env[e.Name] = e.Value
			}
			out[sv.Stdio.Name] = mcp.ServerConfig{Command: sv.Stdio.Command, Args: sv.Stdio.Args, Env: env, Type: "stdio", Source: "the ACP client"}
		case sv.Http != nil:
			headers := map[string]string{}
			for _, h := range sv.Http.Headers {
				headers[h.Name] = h.Value
			}
			out[sv.Http.Name] = mcp.ServerConfig{URL: sv.Http.Url, Headers: headers, Type: "http", Source: "the ACP client"}
		case sv.Sse != nil:
			return nil, fmt.Errorf("MCP server %q: SSE is not supported (cb-ls speaks stdio and streamable HTTP)", sv.Sse.Name)
		default:
			return nil, fmt.Errorf("an MCP server of a transport cb-ls does not speak (stdio and http are)")
		}
	}
	return out, nil
}

func (r *runEnv) registry() *tools.Registry { return r.app.Registry }

func (r *runEnv) tools() *tools.ToolContext { return r.app.Tools }

func (r *runEnv) resolve(path string) (guard.Path, error) { return r.app.Guard.Resolve(path) }

// config is the configuration of a turn, read afresh: the user may have
// changed a file or trusted the project since.
func (r *runEnv) config(ctx context.Context) (config.Config, error) {
	l, err := config.Load(config.LoadOptions{Root: r.s.root, TrustProject: r.opts.TrustProject, Over: []config.Config{r.opts.Over}})
	if err != nil {
		return config.Config{}, sdk.NewInvalidParams(errorData(err))
	}
	cfg := l.Config
	r.s.mu.Lock()
	if m := r.s.choices.model; m != "" {
		cfg.Model = m // the session's model picker
	}
	if v := r.s.choices.review; v != "" {
		cfg.Review = v // the session's review picker
	}
	r.s.mu.Unlock()
	return cfg, nil
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

func (r *runEnv) close() { r.app.Close() }

// resume continues a stored run.
func (r *runEnv) resume(stored *session.Session) { r.run = app.ResumeRun(stored) }

// mcpWait bounds how long a session's first prompt waits for its MCP
// servers to start, so that the model is offered their tools.
const mcpWait = 20 * time.Second

// turn runs one prompt: the run's first task, or a reply to its
// conversation. app stores it beside every other front end's runs.
func (r *runEnv) turn(ctx context.Context, in turnInput, cfg config.Config) (agent.Outcome, error) {
	s := r.s
	ctx = filestate.NewLedgerContext(filestate.NewContext(ctx, s.states), s.ledger)
	rep := &reporter{s: s, ctx: ctx, window: agent.ContextWindow(cfg)}
	t := app.Turn{Config: cfg, Input: in.task.Input, Emit: rep.event}
	if r.run == nil {
		r.app.WaitMCP(ctx, mcpWait)
		id := in.command
		if id == "" {
			id = config.CommandAsk
		}
		cmd, ok := config.FindCommand(cfg, id)
		if !ok {
			return agent.Outcome{}, sdk.NewInvalidParams(map[string]string{"error": "unknown command " + id})
		}
		r.run = app.NewRun(s.root, cmd, session.Header{RunID: s.id, Path: in.task.Path, File: s.rel(in.task.Path), Input: in.task.Input,
			Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, MaxSteps: cfg.MaxSteps})
		in.task.Command = cmd.ID
		t.Task = in.task
	} else {
		t.Input = in.text
		if in.command != "" {
			if cmd, ok := config.FindCommand(cfg, in.command); ok {
				t.Input = agent.TaskPrompt(cmd, in.task, s.root)
			}
		}
	}
	r.run.Begin()
	res := r.app.Do(ctx, r.run, t)
	if res.StoreErr != nil {
		s.a.log.Error("acp: turn not stored", "session", s.id, "error", res.StoreErr)
	}
	if res.ReviewNote != "" {
		s.update(ctx, sdk.UpdateAgentThoughtText(res.ReviewNote))
	}
	if set := r.run.Changes; set != nil && ctx.Err() == nil {
		// Asked once per turn; a cancelled turn's changes stay pending
		// for the next turn's question.
		s.reviewPending(ctx, set)
	}
	return res.Outcome, res.Err
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

// trustQuestion is the trust question for the session's folder, the
// editors' own, and whether it needs asking.
func (r *runEnv) trustQuestion() (string, bool) {
	p := app.DescribeTrust(r.s.root, r.opts.Over, r.app.ProjectTrusted, r.s.a.log)
	if p.Trusted || !p.NeedsQuestion() {
		return "", false
	}
	return p.Message(), true
}

// trustChanged applies a new trust decision: the project's MCP servers
// start now; its settings apply from the next turn (config reads them
// afresh).
func (r *runEnv) trustChanged() {
	if m := r.app.MCP(); m != nil {
		m.SetRoots(r.app.Guard.Roots())
	}
}
