package tools

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// BenchmarkExecTrue measures the fixed cost of one exec call (guard,
// sandbox plan, re-exec, /bin/sh, group cleanup) on `true`.
func BenchmarkExecTrue(b *testing.B) {
	for _, sandboxed := range []bool{true, false} {
		name := "unconfined"
		if sandboxed {
			name = "sandboxed"
			if info := sandbox.Probe(); info.Landlock == 0 {
				b.Logf("no sandbox: %s", info.Summary)
				continue
			}
		}
		b.Run(name, func(b *testing.B) {
			r, _ := execContext(b, ExecOptions{NoSandbox: !sandboxed})
			args, _ := json.Marshal(map[string]any{"command": "true"})
			for b.Loop() {
				res, err := r.Execute(b.Context(), "exec", args)
				if err != nil || res.IsError {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}

// BenchmarkExecTrueWithNetwork is the sandboxed call with the network
// policy: no network namespace to create, which is most of the
// difference to BenchmarkExecTrue/sandboxed.
func BenchmarkExecTrueWithNetwork(b *testing.B) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(b, info.Landlock > 0, "Landlock", info.Summary)
	tc, root := execToolContext(b, ExecOptions{})
	for b.Loop() {
		res, err := runConfined(b.Context(), tc, hostShell(), "true", root, time.Minute, sandbox.Policy{Network: true})
		if err != nil || res.IsError {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
