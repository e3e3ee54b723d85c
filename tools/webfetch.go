package tools

import (
	"context"
	"time"
)

// WebOptions tune web_fetch; zero values mean the defaults.
type WebOptions struct {
	// Allow opens hosts the SSRF guard would refuse ("host" or
	// "host:port"), e.g. a local dev server.
	Allow []string
	// Timeout bounds a whole fetch including redirects (30 s).
	Timeout time.Duration
	// MaxBytes caps the body read (5 MB) and the default max_bytes.
	MaxBytes int
}

// WebFetch is a placeholder being built; it answers with an error.
func WebFetch(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("web_fetch", "web_fetch (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("web_fetch is not available yet"), nil
	})
}
