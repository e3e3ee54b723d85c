package main

import (
	"fmt"
	"io"
)

// toolsMain is not built yet.
func toolsMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "cb-ls tools: not implemented yet")
	return 2
}
