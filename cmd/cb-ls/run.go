package main

import (
	"fmt"
	"io"
)

// runMain is not built yet.
func runMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "cb-ls run: not implemented yet")
	return 2
}
