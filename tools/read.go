package tools

import "context"

// ReadFile is a placeholder being built; it answers with an error.
func ReadFile(tc *ToolContext) Tool {
	type input struct{}
	return NewTool("read_file", "read_file (not built yet)", func(ctx context.Context, in input) (Result, error) {
		return Errorf("read_file is not available yet"), nil
	})
}
