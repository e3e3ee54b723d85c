package main

import (
	"fmt"
	"io"
)

// serveMain is not built yet.
func serveMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "cb-ls serve: not implemented yet")
	return 2
}
