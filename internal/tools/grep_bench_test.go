package tools

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// Benchmark patterns over $GOROOT/src, the same ones bench/grep.sh
// times against ripgrep.
const (
	benchLiteral = "context.Context"
	benchRegex   = `func \w+\(ctx context\.Context`
)

func benchGrep(b *testing.B, args grepInput) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	g, err := guard.New([]string{src}, guard.ModeProject)
	if err != nil {
		b.Fatal(err)
	}
	reg := NewRegistry()
	if err := reg.Register(Grep(&ToolContext{Guard: g, Workspace: DiskWorkspace{}})); err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(args)
	b.ResetTimer()
	for b.Loop() {
		res, err := reg.Execute(context.Background(), "grep", raw)
		if err != nil || res.IsError || strings.HasPrefix(res.Output, "No matches") {
			b.Fatalf("grep: %v %s", err, res.Output)
		}
	}
}

func BenchmarkGrepGorootLiteral(b *testing.B) {
	benchGrep(b, grepInput{Pattern: benchLiteral, Literal: true})
}

func BenchmarkGrepGorootRegex(b *testing.B) {
	benchGrep(b, grepInput{Pattern: benchRegex})
}

func BenchmarkGrepGorootNoLiteral(b *testing.B) {
	benchGrep(b, grepInput{Pattern: `[0-9]{4}-[0-9]{2}-[0-9]{2}`})
}

func BenchmarkGrepGorootCaseInsensitive(b *testing.B) {
	benchGrep(b, grepInput{Pattern: "context.context", Literal: true, CaseInsensitive: true})
}
