package tools

import "context"

// WebFetch is a placeholder being built; it answers with an error.
func WebFetch(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("web_fetch", "web_fetch (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("web_fetch is not available yet"), nil
	})
}
