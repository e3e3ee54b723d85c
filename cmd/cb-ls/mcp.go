package main

import (
	"fmt"
	"io"
)

// mcpMain is not built yet.
func mcpMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "cb-ls mcp: not implemented yet")
	return 2
}
