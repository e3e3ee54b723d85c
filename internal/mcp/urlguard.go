package mcp

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// httpBase returns the transport an HTTP server's requests go through.
// The user's own entries reach what they name (a local server is the
// usual case). A project's entries go through the URL guard web_fetch
// uses: loopback, private, link-local and metadata addresses are refused,
// as written and as resolved at connect time, unless the user's own
// settings allow the host (Options.URLAllow); proxies from the
// environment are not used.
func (m *Manager) httpBase(c ServerConfig, endpoint string) (http.RoundTripper, error) {
	if !c.Project {
		return http.DefaultTransport, nil
	}
	g := &guard.URLGuard{Allow: m.opts.URLAllow}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	if err := g.CheckURL(u); err != nil {
		return nil, err
	}
	return &http.Transport{Proxy: nil, DialContext: g.DialContext, ForceAttemptHTTP2: true}, nil
}
