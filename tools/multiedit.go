package tools

import "context"

// MultiEdit is a placeholder being built; it answers with an error.
func MultiEdit(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("multi_edit", "multi_edit (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("multi_edit is not available yet"), nil
	})
}
