package app

import (
	"context"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// With review "pending" (the default), each run works in its own view:
// its edits land in its change set at once, its commands run over its
// copy-on-write layer without asking to write, and the user keeps or
// discards the set afterwards (internal/changeset). That needs the
// layer: a command must never run in a workspace without the run's
// pending edits. Where the overlay is unavailable (not Linux, an old
// kernel, the sandbox off) the run reviews "before", as it always did,
// and the front end says so once (Result.ReviewNote).

// pendingView returns ctx carrying run r's view, and r's set, when r's
// changes are to be pending; ctx as it is and "" or the fallback's
// reason otherwise.
func (a *App) pendingView(ctx context.Context, r *Run, cfg config.Config) (context.Context, *changeset.Set, string) {
	if !a.opts.Pending || cfg.ReviewMode() != config.ReviewPending {
		return ctx, nil, ""
	}
	info := tools.OptionsFrom(cfg.Tools).Exec.SandboxInfo()
	if !info.Overlay {
		note := ""
		a.fallbackOnce.Do(func() {
			why := info.OverlayReason
			if why == "" {
				why = "the copy-on-write workspace needs the command sandbox, which is " + info.Summary + "."
			}
			note = "Changes are reviewed before they land (review \"before\"): " + why
			a.log.Warn("review falls back to before", "reason", why)
		})
		return ctx, nil, note
	}
	set, err := a.Changes.Begin(r.ID, r.Command.Title)
	if err != nil {
		a.log.Warn("the run's change set", "run", r.ID, "error", err)
		return ctx, nil, "Changes are reviewed before they land: the run's change set could not be made (" + err.Error() + ")."
	}
	under := a.Tools.Workspace
	return tools.WithRunView(ctx, tools.RunView{ID: r.ID, Workspace: set.Workspace(under),
		Layer: set.Layer(under), Search: set.Search, News: set.TakeNews, Files: set.ViewFiles}), set, ""
}
