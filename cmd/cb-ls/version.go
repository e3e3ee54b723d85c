package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

func versionMain(stdout io.Writer) int {
	fmt.Fprintf(stdout, "cb-ls %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "exec sandbox: %s\n", sandbox.Probe().Summary)
	state := userstate.Base(os.Getenv)
	if state == "" {
		state = "none (no home directory): nothing is kept between runs"
	}
	fmt.Fprintf(stdout, "state: %s (change sets, sessions, trust; never in the project)\n", state)
	return 0
}
