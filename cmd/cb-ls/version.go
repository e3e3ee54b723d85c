package main

import (
	"fmt"
	"io"
	"runtime"
)

func versionMain(stdout io.Writer) int {
	fmt.Fprintf(stdout, "cb-ls %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
