package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/catbuddy/cb-ls/internal/sandbox"
)

func versionMain(stdout io.Writer) int {
	fmt.Fprintf(stdout, "cb-ls %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "exec sandbox: %s\n", sandbox.Probe().Summary)
	return 0
}
