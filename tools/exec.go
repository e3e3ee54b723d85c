package tools

import "context"

// Exec is a placeholder being built; it answers with an error.
func Exec(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("exec", "exec (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("exec is not available yet"), nil
	})
}
