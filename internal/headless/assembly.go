package headless

import (
	"io"
	"log/slog"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
)

// mcpStartTimeout bounds how long cb-ls run waits for its MCP servers
// before the model's first turn: as long as one server's handshake may
// take (mcp.Options.ConnectTimeout's default).
const mcpStartTimeout = 30 * time.Second

// mcpLogger is the log of cb-ls run's assembly (MCP servers, trust):
// warnings and errors only, on stderr beside the progress.
func mcpLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// projectTrust is cb-ls run's trust decision: --trust-project trusts
// the project for this run, as it does its config.json; otherwise the
// user's trust store decides.
func projectTrust(trustFlag bool, stderr io.Writer) func(root string) bool {
	store := config.DefaultTrustStore()
	log := mcpLogger(stderr)
	return func(root string) bool {
		if trustFlag {
			return true
		}
		ok, err := store.TrustedRoot(root)
		if err != nil {
			log.Warn("project trust", "error", err)
		}
		return ok
	}
}

// errSuffix is ": reason", or "" without one.
func errSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}
