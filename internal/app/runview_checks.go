package app

import (
	"context"
	"maps"
	"os/exec"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// In the editor, an edit's diagnostics come from the editor
// (catbuddy/diagnostics), whose language servers see the user's buffers.
// A run whose edits are pending has its own view, which they never see:
// asked after such an edit, they answer what they answered before it.
// So the editor's front end also gets language servers of cb-ls's own
// that check the runs' views (RunViewServers): started when a run first
// checks a file of their language, shown the run's pending text as
// headless runs' servers are. A run without a view (review "before")
// still asks the editor, whose buffers then hold the edit.

// defaultRunViewServers are started to check a run's view when they are
// on PATH and no configured server answers for their files.
var defaultRunViewServers = map[string]config.LanguageServer{
	"gopls":                      {Command: []string{"gopls"}, Extensions: []string{".go"}},
	"pyright":                    {Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py", ".pyi"}},
	"typescript-language-server": {Command: []string{"typescript-language-server", "--stdio"}, Extensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}},
}

// RunViewServers returns the language servers that check a run's
// pending view in the editor, as cfg's runViewServers says: the
// languageServers setting, and for "auto" (the default) the
// defaultRunViewServers found on PATH for the files no configured server
// answers for (an empty map when there are none: nothing checks a run's
// view, and its edits say so); nil for "off".
func RunViewServers(cfg config.Config) map[string]config.LanguageServer {
	if cfg.RunViewServers == config.RunViewServersOff {
		return nil
	}
	out := maps.Clone(cfg.LanguageServers)
	if out == nil {
		out = map[string]config.LanguageServer{}
	}
	if cfg.RunViewServers == config.RunViewServersConfigured {
		return out
	}
	covered := map[string]bool{}
	for _, s := range out {
		for _, e := range s.Extensions {
			covered[strings.ToLower(e)] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(defaultRunViewServers)) {
		s := defaultRunViewServers[name]
		if _, taken := out[name]; taken {
			continue
		}
		var exts []string
		for _, e := range s.Extensions {
			if !covered[e] {
				exts = append(exts, e)
			}
		}
		if len(exts) == 0 {
			continue
		}
		if _, err := exec.LookPath(s.Command[0]); err != nil {
			continue
		}
		s.Extensions = exts
		out[name] = s
	}
	return out
}

// viewChecks tells an edit's diagnostics from the editor, except for a
// run with a view of its own: then from the servers that see it.
type viewChecks struct {
	editor tools.DiagnosticsSource
	view   tools.DiagnosticsSource // lspclient's Checks
}

var (
	_ tools.ContentDiagnostics = viewChecks{}
	_ tools.DiagnosticsChecker = viewChecks{}
	_ tools.DiagnosticsKnower  = viewChecks{}
)

func (v viewChecks) of(ctx context.Context) tools.DiagnosticsSource {
	if _, ok := tools.RunViewFrom(ctx); ok {
		return v.view
	}
	return v.editor
}

func (v viewChecks) Diagnostics(ctx context.Context, path string) ([]tools.Diagnostic, error) {
	return v.of(ctx).Diagnostics(ctx, path)
}

func (v viewChecks) DiagnosticsOf(ctx context.Context, path string, content []byte) ([]tools.Diagnostic, error) {
	if cd, ok := v.of(ctx).(tools.ContentDiagnostics); ok {
		return cd.DiagnosticsOf(ctx, path, content)
	}
	return v.of(ctx).Diagnostics(ctx, path)
}

// OpenFiles lists the editor's open files, or for a run with a view the
// files its servers check (its changed files, those they have open).
func (v viewChecks) OpenFiles(ctx context.Context) []string {
	return v.of(ctx).OpenFiles(ctx)
}

// Checker names the view's server that checks path for a run with a
// view; the editor's diagnostics name their own sources.
func (v viewChecks) Checker(ctx context.Context, path string) string {
	if c, ok := v.of(ctx).(tools.DiagnosticsChecker); ok {
		return c.Checker(ctx, path)
	}
	return ""
}

func (v viewChecks) Known(ctx context.Context, paths []string) map[string][]tools.Diagnostic {
	if k, ok := v.of(ctx).(tools.DiagnosticsKnower); ok {
		return k.Known(ctx, paths)
	}
	return nil
}

// runViewClient builds the servers that check the runs' views in the
// editor: nothing starts until a run checks a file of their language.
func runViewClient(roots []string, servers map[string]config.LanguageServer, o Options) *lspclient.Client {
	if len(servers) == 0 {
		return nil
	}
	return lspclient.New(lspclient.Options{Roots: roots, Servers: serverConfigs(servers), Logger: o.Logger, OnStatus: func(st lspclient.Status) {
		if o.OnLanguageStatus != nil {
			o.OnLanguageStatus(st.Text, st.State == lspclient.StateUnavailable)
		}
	}})
}
