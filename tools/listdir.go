package tools

import "context"

// ListDir is a placeholder being built; it answers with an error.
func ListDir(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("list_dir", "list_dir (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("list_dir is not available yet"), nil
	})
}
