package tools

import (
	"encoding/json"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// BenchmarkReadFileBytesPerTurn measures what a read_file of a 1 MB
// source file without offset or limit puts in the conversation, which
// every later turn sends again: "default" is today's answer, "2000
// lines" the answer before the 40 KB bound (the same read with the
// line cap alone, as limit=2000 still gives).
//
//	go test -run XXX -bench BenchmarkReadFileBytesPerTurn ./internal/tools
func BenchmarkReadFileBytesPerTurn(b *testing.B) {
	content := bigSource(1 << 20)
	for _, bc := range []struct {
		name string
		args map[string]any
	}{
		{"default", map[string]any{"path": "big.go"}},
		{"2000 lines", map[string]any{"path": "big.go", "limit": 2000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			env := newBenchEnv(b, content)
			args, _ := json.Marshal(bc.args)
			n := 0
			for b.Loop() {
				ctx := filestate.NewContext(b.Context(), filestate.New()) // a first read each time
				res, err := env.reg.Execute(ctx, "read_file", args)
				if err != nil || res.IsError {
					b.Fatalf("read_file: %v %s", err, res.Output)
				}
				n = len(res.Output)
			}
			b.ReportMetric(float64(n), "bytes/turn")
		})
	}
}
