package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/mcp"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Options are what a front end supplies. Everything else (the registry,
// the tools' context, MCP, sessions and transcripts) App builds.
type Options struct {
	// Roots and Mode build the guard: the workspace folders (the first
	// is the work root) and what the agent may touch.
	Roots []string
	Mode  guard.Mode
	// Guard, if set, is used instead: a front end whose folders change
	// while it runs (the editor) keeps its guard and changes its roots.
	Guard *guard.PathGuard

	// Workspace reads and writes documents: nil is the disk; the editor
	// supplies buffers and reviewed workspace/applyEdit.
	Workspace tools.Workspace
	// Approver is how exec's questions reach the user. Nil refuses every
	// command that would need approval.
	Approver tools.Approver
	// OnEdit, OnExecChanges and Diagnostics, if set, are the tools'
	// listeners and diagnostics source (tools.ToolContext).
	OnEdit        tools.EditListener
	OnExecChanges tools.ExecChangeListener
	Diagnostics   tools.DiagnosticsSource
	// Language, if set, answers the language tools (the editor's bridge
	// or the headless language servers); see tools.ToolContext.Language.
	Language tools.LanguageFeatures
	// LanguageServers, when Language is nil, are the language servers
	// (config.Config.LanguageServers) that answer the language tools
	// instead: started when a tool first needs one, told of every change
	// the Workspace makes, and shut down by Close. A front end with no
	// editor (the command line) passes its configuration's.
	LanguageServers map[string]config.LanguageServer
	// RunViewServers, for a front end whose Diagnostics come from an
	// editor (whose servers see the user's buffers, not a run's pending
	// edits), are the language servers that check a run's view instead
	// (RunViewServers(cfg)) and answer its language tools about the
	// languages it has pending changes in: started when a run first
	// needs one, shut down by Close. Empty but not nil (none found): a
	// run's pending edit says nothing checks it. Nil (runViewServers
	// "off"): the editor answers.
	RunViewServers map[string]config.LanguageServer
	// OnLanguageStatus, if set, is told how the LanguageServers are
	// doing: "starting gopls…", "gopls: indexing (4 s)" (transient), or
	// why one was withdrawn (permanent: shown once, kept).
	OnLanguageStatus func(text string, permanent bool)
	// Registry, if set, is filled instead of a new one: a front end that
	// hands its registry out before the tools are registered.
	Registry *tools.Registry
	// RegisterTools fills the registry; nil is tools.RegisterBuiltins.
	RegisterTools func(*tools.Registry, *tools.ToolContext) error

	// ProjectTrusted decides whether a project's settings that need
	// trust apply, its MCP servers included. Nil asks the user's trust
	// store (config.DefaultTrustStore).
	ProjectTrusted func(root string) bool
	// DisplayPath shows an absolute path to the user (the files a turn
	// changed); nil uses the path relative to the work root.
	DisplayPath func(path string) string

	// MCPServers are servers the front end's client names (an ACP
	// session's mcpServers), started by StartMCP with the configured ones.
	MCPServers map[string]mcp.ServerConfig

	// Pending is true for a front end that shows a run's change set and
	// lets the user keep or discard it (Run.Changes, App.Changes): its
	// runs then work in their own view when the review setting is
	// "pending" (review.go). Other front ends review before, as ever.
	Pending bool

	// Headless is true for a front end with no editor around it (the
	// command line): the model's system prompt then says so.
	Headless bool

	// Version is reported to MCP servers; Logger gets App's logs
	// (nil: slog.Default()).
	Version string
	Logger  *slog.Logger
}

// App is one front end's assembly: the guard, the tool registry over the
// front end's Workspace, the tools' context and, once started, the MCP
// servers. One App serves every run of its front end. It is safe for
// concurrent use.
type App struct {
	// Guard admits every path the tools touch.
	Guard *guard.PathGuard
	// Registry holds the built-in tools and, once StartMCP ran, the MCP
	// servers' as mcp_<server>_<tool>.
	Registry *tools.Registry
	// Tools is the context the built-in tools were registered over.
	Tools *tools.ToolContext
	// Changes holds every run's pending change set (review "pending"),
	// those earlier processes left included.
	Changes *changeset.Store

	opts Options
	log  *slog.Logger

	lsp *lspclient.Client // nil unless Options.LanguageServers answer the language tools
	// views checks runs' views in the editor (Options.RunViewServers).
	views *lspclient.Client

	mu  sync.Mutex
	mcp *mcp.Manager

	fallbackOnce sync.Once // the review fallback is said once
}

// New builds the guard (unless given one), the registry and the tools'
// context, and registers the tools.
func New(o Options) (*App, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Workspace == nil {
		o.Workspace = tools.DiskWorkspace{}
	}
	if o.ProjectTrusted == nil {
		store := config.DefaultTrustStore()
		log := o.Logger
		o.ProjectTrusted = func(root string) bool {
			ok, err := store.TrustedRoot(root)
			if err != nil {
				log.Warn("project trust", "error", err)
			}
			return ok
		}
	}
	g := o.Guard
	if g == nil {
		var err error
		if g, err = guard.New(o.Roots, o.Mode); err != nil {
			return nil, err
		}
	}
	reg := o.Registry
	if reg == nil {
		reg = tools.NewRegistry()
	}
	var lc *lspclient.Client
	var vc *lspclient.Client // servers that only check runs' views
	if o.Language == nil {
		if lc = startLanguageServers(g.Roots(), o.LanguageServers, o, func() { withdrawLanguageTools(reg) }); lc != nil {
			o.Workspace = lc.Workspace(o.Workspace)
			o.Language = lc.Features()
		}
		if o.Diagnostics == nil {
			// No editor tells diagnostics: the servers cb-ls started
			// check the run's view, and an edit of a language none
			// checks says so. Where the workspace has no file of a
			// configured server's language yet (the language tools
			// are not offered), the server still checks the first
			// file a run writes in it, started then.
			checks := lc.Checks()
			if lc == nil && len(o.LanguageServers) > 0 {
				vc = runViewClient(g.Roots(), o.LanguageServers, o)
				checks = vc.Checks()
			}
			o.Diagnostics = checks
		}
	}
	// Even with no server to start (none on PATH), the run's view is
	// not the editor's: its checks then say that nothing checks it.
	if vc == nil && o.Diagnostics != nil && o.RunViewServers != nil {
		view := lc.Checks()
		if lc == nil {
			vc = runViewClient(g.Roots(), o.RunViewServers, o) // nil for none
			view = vc.Checks()
			// The editor's servers cannot answer about a run's pending
			// text either: the same servers do (runview_language.go).
			o.Language = withRunViewLanguage(o.Language, vc)
		}
		o.Diagnostics = viewChecks{editor: o.Diagnostics, view: view}
	}
	approver := o.Approver
	if approver == nil {
		approver = tools.ApproverFunc(refuse)
	}
	tc := &tools.ToolContext{Guard: g, Workspace: o.Workspace, Approver: approver,
		OnEdit: o.OnEdit, OnExecChanges: o.OnExecChanges, Diagnostics: o.Diagnostics, Language: o.Language}
	register := o.RegisterTools
	if register == nil {
		register = tools.RegisterBuiltins
	}
	if err := register(reg, tc); err != nil {
		closeLanguageServers(lc)
		closeLanguageServers(vc)
		return nil, fmt.Errorf("register tools: %w", err)
	}
	if lc != nil && lc.Withdrawn() {
		withdrawLanguageTools(reg) // every server failed before the tools were registered
	}
	changes, err := changeset.Open(g, o.Logger)
	if err != nil {
		closeLanguageServers(lc)
		closeLanguageServers(vc)
		return nil, fmt.Errorf("pending change sets: %w", err)
	}
	return &App{Guard: g, Registry: reg, Tools: tc, Changes: changes, opts: o, log: o.Logger, lsp: lc, views: vc}, nil
}

// errNoApprover is what the model hears when the front end has nobody to
// ask.
var errNoApprover = errors.New("nobody can be asked to approve this command here, so it is refused")

func refuse(context.Context, tools.ApprovalRequest) (tools.Decision, error) {
	return tools.Rejected, errNoApprover
}

// ProjectTrusted reports whether the project at root is trusted, as
// Options.ProjectTrusted decides.
func (a *App) ProjectTrusted(root string) bool { return a.opts.ProjectTrusted(root) }

// Close stops the MCP servers and the language servers it started. The
// App is not used after.
func (a *App) Close() {
	if m := a.MCP(); m != nil {
		m.Shutdown()
	}
	closeLanguageServers(a.lsp)
	closeLanguageServers(a.views)
}
