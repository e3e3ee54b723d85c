package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"

	"github.com/catbuddy/cb-ls/internal/config"
)

// usefulTurnTokens is the room a run needs beyond its fixed prompt (the
// system prompt, the tools and the task): a file read and an answer.
const usefulTurnTokens = 8192

// recommendedWindow is the window the messages suggest: enough for a
// real task with a few files read.
const recommendedWindow = 32_768

// ErrWindowTooSmall is wrapped by the error of a run refused because
// the server runs the model with a context too small for it.
var ErrWindowTooSmall = errors.New("context window too small")

// WindowError says that the server's window cannot hold the fixed
// prompt and a useful turn, and what to set.
type WindowError struct {
	Endpoint, Model string
	Served          servedWindow
	Need            int // tokens: the fixed prompt plus a useful turn
	Fixed           int // tokens of the fixed prompt
}

func (e *WindowError) Unwrap() error { return ErrWindowTooSmall }

func (e *WindowError) Error() string {
	want := max(recommendedWindow, 1<<bits.Len(uint(e.Need)))
	var fix string
	switch e.Served.server {
	case "ollama":
		fix = fmt.Sprintf("start Ollama with OLLAMA_CONTEXT_LENGTH=%d, or give the model num_ctx %d (PARAMETER num_ctx %d in a Modelfile)", want, want, want)
	case "llama.cpp":
		fix = fmt.Sprintf("start llama-server with --ctx-size %d", want)
	case "vllm":
		fix = fmt.Sprintf("start vLLM with --max-model-len %d", want)
	case "lmstudio":
		fix = fmt.Sprintf("load the model in LM Studio with a context length of %d (lms load %s --context-length %d)", want, e.Model, want)
	default:
		fix = "choose a model with a larger context"
	}
	if t := e.Served.trained; t > 0 && t < e.Need {
		fix = fmt.Sprintf("the model's own maximum is %d tokens: choose a model with a larger context", t)
	}
	return fmt.Sprintf("model %q at %s runs with a context window of %d tokens (%s), too small for cb-ls's fixed prompt of about %d tokens plus a useful turn (%d tokens at least): %s; or, if the server misreports it, set contextWindow",
		e.Model, e.Endpoint, e.Served.tokens, e.Served.source, e.Fixed, e.Need, fix)
}

// runWindow returns the window a run works with: the contextWindow
// setting, else what the server says it serves the model with (refusing
// a window too small for req's fixed part and a useful turn), else the
// table's.
func runWindow(ctx context.Context, cfg config.Config, req ModelRequest) (int, error) {
	if cfg.ContextWindow > 0 {
		return cfg.ContextWindow, nil
	}
	sw := probeServed(ctx, cfg)
	if sw.tokens <= 0 {
		if sw.server == "ollama" {
			slog.Warn("agent: Ollama did not say the context it runs the model with; assuming the model's own", "model", cfg.Model, "tokens", ContextWindow(cfg))
		}
		return ContextWindow(cfg), nil
	}
	if len(req.Messages) > 1 {
		req.Messages = req.Messages[:1] // the task; a long history is compaction's business
	}
	fixed := newBudget(sw.tokens).tokens(&req)
	if need := fixed + usefulTurnTokens; sw.tokens < need {
		return 0, &WindowError{Endpoint: cfg.BaseURL, Model: cfg.Model, Served: sw, Need: need, Fixed: fixed}
	}
	rememberServed(cfg, sw)
	return sw.tokens, nil
}
