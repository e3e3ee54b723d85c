package app

import (
	"context"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/lspclient"
)

// languageServersStopTimeout bounds Close's shutdown of the language
// servers; one that does not exit by then is killed.
const languageServersStopTimeout = 10 * time.Second

// startLanguageServers builds the headless language client for the
// configured servers (nil when there are none). Nothing starts until a
// language tool needs a server.
func startLanguageServers(roots []string, servers map[string]config.LanguageServer, o Options) *lspclient.Client {
	if len(servers) == 0 {
		return nil
	}
	cfgs := make(map[string]lspclient.ServerConfig, len(servers))
	for name, s := range servers {
		cfgs[name] = lspclient.ServerConfig{Command: s.Command, Extensions: s.Extensions, InitializationOptions: s.InitializationOptions}
	}
	return lspclient.New(lspclient.Options{Roots: roots, Servers: cfgs, Logger: o.Logger})
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
