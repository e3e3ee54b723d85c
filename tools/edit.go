package tools

import "context"

// EditFile is a placeholder being built; it answers with an error.
func EditFile(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("edit_file", "edit_file (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("edit_file is not available yet"), nil
	})
}
