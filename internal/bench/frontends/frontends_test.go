// Package frontends compares the editor front ends on one turn: the time
// from the user's request (catbuddy.run over LSP, session/prompt over
// ACP) to the first model request, and the CPU one turn costs, measured
// in the same run against the same scripted model.
//
//	go test -run '^$' -bench . -benchtime 50x -count 3 ./internal/bench/frontends/
package frontends

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/acp"
	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

const key = "sk-bench-frontends-0123456789"

// model answers every request with text at once and tells arrivals.
func model(b *testing.B) (*agenttest.Server, chan time.Time) {
	arrived := make(chan time.Time, 1)
	srv := agenttest.NewServer(b, agenttest.Script{})
	srv.DiscardRequests = true
	srv.Next = func(int, agenttest.Request) agenttest.Turn {
		select {
		case arrived <- time.Now():
		default:
		}
		return agenttest.TextTurn("Nothing to change.")
	}
	return srv, arrived
}

func isolate(b *testing.B) string {
	for _, k := range []string{"CB_PROVIDER", "CB_MODEL", "CB_BASE_URL", "CB_MAX_STEPS", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
		b.Setenv(k, "")
	}
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// cpuNow is the process's user+system CPU time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report sets the benchmark's medians.
func report(b *testing.B, latency, cpu []time.Duration) {
	median := func(d []time.Duration) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(latency), "median-ms-to-model")
	b.ReportMetric(median(cpu), "median-cpu-ms/turn")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkLSP is one free question per iteration over LSP (the fake
// editor on a pipe): catbuddy.run → first model request → run's end.
func BenchmarkLSP(b *testing.B) {
	dir := isolate(b)
	srv, arrived := model(b)
	ed := fake.New(b, fake.Options{Folders: []string{dir}, InitializationOptions: map[string]any{
		"provider": "openai", "baseUrl": srv.URL(), "model": "scripted", "apiKey": key,
	}})
	var latency, cpu []time.Duration
	for b.Loop() {
		before := len(ed.Notifications("catbuddy/runEvent"))
		c0, t0 := cpuNow(), time.Now()
		var res struct {
			RunID string `json:"runId"`
		}
		if err := ed.ExecuteCommand("catbuddy.run", []any{map[string]any{"command": "ask", "input": "Is calc.go fine?"}}, &res); err != nil {
			b.Fatal(err)
		}
		t1 := <-arrived
		ed.Await("the run's end", func() bool {
			for _, raw := range ed.Notifications("catbuddy/runEvent")[before:] {
				if strings.Contains(string(raw), res.RunID) && strings.Contains(string(raw), `"kind":"end"`) {
					return true
				}
			}
			return false
		})
		latency, cpu = append(latency, t1.Sub(t0)), append(cpu, cpuNow()-c0)
	}
	report(b, latency, cpu)
}

// BenchmarkACP is the same question per iteration over ACP (the Go SDK's
// client on a pipe), each in a new session like each LSP run:
// session/prompt → first model request → the prompt's answer.
func BenchmarkACP(b *testing.B) {
	dir := isolate(b)
	srv, arrived := model(b)
	b.Setenv("CB_PROVIDER", "openai")
	b.Setenv("CB_BASE_URL", srv.URL())
	b.Setenv("CB_MODEL", "scripted")
	b.Setenv("OPENAI_API_KEY", key)
	conn := connect(b)
	var latency, cpu []time.Duration
	for b.Loop() {
		s, err := conn.NewSession(b.Context(), sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
		if err != nil {
			b.Fatal(err)
		}
		c0, t0 := cpuNow(), time.Now()
		res, err := conn.Prompt(b.Context(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("Is calc.go fine?")}})
		if err != nil || res.StopReason != sdk.StopReasonEndTurn {
			b.Fatalf("prompt: %v %v", res.StopReason, err)
		}
		latency, cpu = append(latency, (<-arrived).Sub(t0)), append(cpu, cpuNow()-c0)
	}
	report(b, latency, cpu)
}

func connect(b *testing.B) *sdk.ClientSideConnection {
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = acp.Serve(ctx, agentIn, agentOut, acp.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Run: acp.RunOptions{Mode: guard.ModeAuto}})
		agentOut.Close()
	}()
	b.Cleanup(func() { toAgent.Close(); cancel() })
	conn := sdk.NewClientSideConnection(quiet{}, toAgent, fromAgent)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := conn.Initialize(b.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		b.Fatal(err)
	}
	return conn
}

// quiet is a client that accepts updates and offers nothing else.
type quiet struct{}

var errNone = errors.New("not offered")

func (quiet) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }
func (quiet) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{}, errNone
}
func (quiet) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNone
}
func (quiet) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNone
}
func (quiet) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNone
}
func (quiet) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNone
}
func (quiet) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNone
}
func (quiet) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNone
}
func (quiet) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNone
}
