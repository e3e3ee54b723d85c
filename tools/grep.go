package tools

import "context"

// Grep is a placeholder being built; it answers with an error.
func Grep(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("grep", "grep (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("grep is not available yet"), nil
	})
}
