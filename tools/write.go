package tools

import "context"

// WriteFile is a placeholder being built; it answers with an error.
func WriteFile(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("write_file", "write_file (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("write_file is not available yet"), nil
	})
}
