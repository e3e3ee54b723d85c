package app

import (
	"context"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// languageServersStopTimeout bounds Close's shutdown of the language
// servers; one that does not exit by then is killed.
const languageServersStopTimeout = 10 * time.Second

// startLanguageServers builds the headless language client for the
// configured servers whose language the workspace has (nil when there
// is none: then the language tools are not offered, and cost nothing),
// and starts those servers in the background. onStatus gets their
// progress; withdraw is called once no server can answer.
func startLanguageServers(roots []string, servers map[string]config.LanguageServer, o Options, withdraw func()) *lspclient.Client {
	if len(servers) == 0 {
		return nil
	}
	var c *lspclient.Client
	c = lspclient.New(lspclient.Options{Roots: roots, Servers: serverConfigs(servers), Logger: o.Logger, OnStatus: func(st lspclient.Status) {
		if o.OnLanguageStatus != nil {
			o.OnLanguageStatus(st.Text, st.State == lspclient.StateUnavailable)
		}
		if st.State == lspclient.StateUnavailable && c.Withdrawn() {
			withdraw()
		}
	}})
	present := c.Present(context.Background())
	if len(present) == 0 {
		o.Logger.Info("no file of a configured language server's language in the workspace: the language tools are not offered")
		return nil
	}
	c.Start(present)
	return c
}

// serverConfigs are the languageServers setting's entries as the client
// takes them.
func serverConfigs(servers map[string]config.LanguageServer) map[string]lspclient.ServerConfig {
	cfgs := make(map[string]lspclient.ServerConfig, len(servers))
	for name, s := range servers {
		wait := time.Duration(s.IndexingWait) * time.Second
		if wait <= 0 {
			wait = config.DefaultIndexingWait * time.Second
		}
		cfgs[name] = lspclient.ServerConfig{Command: s.Command, Extensions: s.Extensions,
			InitializationOptions: s.InitializationOptions, IndexingWait: wait}
	}
	return cfgs
}

// withdrawLanguageTools takes the language tools out of reg: the next
// run is not offered them.
func withdrawLanguageTools(reg *tools.Registry) {
	for _, name := range tools.LanguageToolNames {
		reg.Unregister(name)
	}
}

// closeLanguageServers shuts down the servers the run started.
func closeLanguageServers(c *lspclient.Client) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), languageServersStopTimeout)
	defer cancel()
	c.Close(ctx)
}

// LanguageServer is one language server this App started and that runs
// now, with its memory.
type LanguageServer struct {
	lspclient.Process
	// RunView: it checks the runs' pending changes in the editor (the
	// run's view), rather than answering the language tools.
	RunView bool
}

// String is its status line: "gopls (pid 4242): 182.4 MB resident", and
// "(run view)" for a run view's server.
func (s LanguageServer) String() string {
	if s.RunView {
		return s.Process.String() + " (run view)"
	}
	return s.Process.String()
}

// LanguageServers lists the language servers this App started and that
// run now, with their memory: those answering the language tools, then
// those checking the runs' views in the editor. For a front end's
// status and the log.
func (a *App) LanguageServers() []LanguageServer {
	var out []LanguageServer
	for _, p := range a.lsp.Processes() {
		out = append(out, LanguageServer{Process: p})
	}
	for _, p := range a.views.Processes() {
		out = append(out, LanguageServer{Process: p, RunView: true})
	}
	return out
}

// logLanguageServers writes the running language servers and their
// memory to the log, after each turn: what a run's servers cost is in
// the log as well as in the status.
func (a *App) logLanguageServers(runID string) {
	servers := a.LanguageServers()
	if len(servers) == 0 {
		return
	}
	lines := make([]string, len(servers))
	for i, s := range servers {
		lines[i] = s.String()
	}
	a.log.Info("language servers after a turn", "run", runID, "servers", strings.Join(lines, "; "))
}
