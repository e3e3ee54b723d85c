package agent

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
)

// servedConfig is an OpenAI-compatible config for srv's model, as the
// README's Ollama command makes it.
func servedConfig(srv *agenttest.Server) config.Config {
	return config.Config{Provider: "openai", Model: "scripted", BaseURL: srv.URL(), APIKey: testKey, MaxSteps: 5}
}

// TestOllamaSmallWindowStopsWithWhatToSet: an Ollama server that runs the
// model with its default 4096 tokens (seen once the model is loaded)
// would silently drop the start of the prompt; the run stops before
// asking the model, with the one line that says what to set.
func TestOllamaSmallWindowStopsWithWhatToSet(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{
		Served: &agenttest.Served{Kind: "ollama", Window: 4096},
		Turns:  []agenttest.Turn{{Text: "never asked"}},
	})
	tt := newTestTools(t)
	r := &Runner{Registry: tt.reg, Config: servedConfig(srv)}
	_, err := r.Run(t.Context(), Task{Input: "fix the bug"}, nil)
	var we *WindowError
	if !errors.Is(err, ErrWindowTooSmall) || !errors.As(err, &we) {
		t.Fatalf("Run error = %v, want a WindowError", err)
	}
	msg := err.Error()
	for _, want := range []string{"4096 tokens", "OLLAMA_CONTEXT_LENGTH=32768", "num_ctx 32768", "/api/ps"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d chat requests sent; the run should stop before asking the model", n)
	}
	if got, want := srv.Probes(), []string{"show scripted", "ps", "load scripted", "ps"}; !slices.Equal(got, want) {
		t.Errorf("probes %q, want %q (the model is loaded to learn the server's default)", got, want)
	}
}

// TestOllamaWindowIsUsed: a window Ollama serves (num_ctx in the model's
// parameters) that holds the prompt is the run's budget: a large tool
// output is trimmed before the next request would pass it, so Ollama
// never has to drop the start of a request.
func TestOllamaWindowIsUsed(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{
		Served: &agenttest.Served{Kind: "ollama", Window: 16384, NumCtx: true},
		Turns: []agenttest.Turn{
			{ToolCalls: []agenttest.ToolCall{{Name: "echo", Args: args(map[string]string{"text": strings.Repeat("word ", 6000)})}}},
			{ToolCalls: []agenttest.ToolCall{{Name: "echo", Args: args(map[string]string{"text": strings.Repeat("more ", 6000)})}}},
			{Text: "done"},
		},
	})
	tt := newTestTools(t)
	var ev events
	r := &Runner{Registry: tt.reg, Config: servedConfig(srv)}
	if _, err := r.Run(t.Context(), Task{Input: "go"}, ev.emit); err != nil {
		t.Fatal(err)
	}
	for _, req := range srv.Requests() {
		if req.Truncated {
			t.Errorf("request %d is longer than Ollama's window (%d bytes): its start was dropped", req.Index, len(req.Raw))
		}
	}
	if len(ev.texts(EventCompact)) == 0 {
		t.Error("no trimming: the run did not work with the 16384 tokens Ollama serves (the table would have assumed 32768)")
	}
	if got := srv.Probes(); slices.Contains(got, "load scripted") {
		t.Errorf("probes %q: num_ctx was in the parameters, no load needed", got)
	}
}

// TestServedWindowOfOtherServers: llama.cpp, vLLM, LM Studio and
// OpenRouter each say their window their own way, and each gets its own
// advice.
func TestServedWindowOfOtherServers(t *testing.T) {
	for _, tc := range []struct {
		kind, probe, fix string
	}{
		{"llamacpp", "props", "--ctx-size 32768"},
		{"vllm", "models", "--max-model-len 32768"},
		{"lmstudio", "lmstudio models", "lms load scripted --context-length 32768"},
		{"openrouter", "models", "choose a model with a larger context"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			srv := agenttest.NewServer(t, agenttest.Script{
				Served: &agenttest.Served{Kind: tc.kind, Window: 4096, Loaded: true},
				Turns:  []agenttest.Turn{{Text: "hi"}},
			})
			r := &Runner{Registry: newTestTools(t).reg, Config: servedConfig(srv)}
			_, err := r.Run(t.Context(), Task{Input: "go"}, nil)
			if !errors.Is(err, ErrWindowTooSmall) || !strings.Contains(err.Error(), tc.fix) {
				t.Fatalf("Run error = %v, want the window refused with %q", err, tc.fix)
			}
			if !slices.Contains(srv.Probes(), tc.probe) {
				t.Errorf("probes %q lack %q", srv.Probes(), tc.probe)
			}

			// A window that holds the prompt lets the run go on.
			big := agenttest.NewServer(t, agenttest.Script{
				Served: &agenttest.Served{Kind: tc.kind, Window: 65536, Loaded: true},
				Turns:  []agenttest.Turn{{Text: "hi"}},
			})
			r.Config = servedConfig(big)
			if out, err := r.Run(t.Context(), Task{Input: "go"}, nil); err != nil || out.Answer != "hi" {
				t.Errorf("Run with 65536 tokens = %q, %v", out.Answer, err)
			}
		})
	}
}

// TestContextWindowSettingWins: the setting is not second-guessed, and
// the server is not asked.
func TestContextWindowSettingWins(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{
		Served: &agenttest.Served{Kind: "ollama", Window: 4096},
		Turns:  []agenttest.Turn{{Text: "hi"}},
	})
	cfg := servedConfig(srv)
	cfg.ContextWindow = 32768
	r := &Runner{Registry: newTestTools(t).reg, Config: cfg}
	if _, err := r.Run(t.Context(), Task{Input: "go"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Probes(); len(got) != 0 {
		t.Errorf("probes %q with contextWindow set", got)
	}
}

// TestModelOwnMaximumTooSmall: when the model itself cannot take more,
// raising the server's setting would not help, and the message says so.
func TestModelOwnMaximumTooSmall(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{
		Served: &agenttest.Served{Kind: "ollama", Window: 2048, Trained: 2048, NumCtx: true},
		Turns:  []agenttest.Turn{{Text: "hi"}},
	})
	r := &Runner{Registry: newTestTools(t).reg, Config: servedConfig(srv)}
	_, err := r.Run(t.Context(), Task{Input: "go"}, nil)
	if err == nil || !strings.Contains(err.Error(), "the model's own maximum is 2048 tokens") {
		t.Fatalf("Run error = %v", err)
	}
}
