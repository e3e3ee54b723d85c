package tools

import "context"

// Glob is a placeholder being built; it answers with an error.
func Glob(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("glob", "glob (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("glob is not available yet"), nil
	})
}
