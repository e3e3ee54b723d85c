package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
)

// A local server often runs a model with a smaller context than the
// model's own: Ollama serves a few thousand tokens unless told more, and
// silently drops the start of a longer prompt. So before a run the
// window is asked of the server itself, where it says:
//
//   - Ollama: the num_ctx parameter of /api/show, or the context_length
//     /api/ps reports for the loaded model (the model is loaded first,
//     which the run needs anyway);
//   - vLLM: max_model_len, OpenRouter: context_length, in /v1/models;
//   - LM Studio: loaded_context_length in /api/v0/models;
//   - llama.cpp: n_ctx in /props.
//
// The contextWindow setting wins over all of it.

// servedWindow is what a server said about its window for the model.
type servedWindow struct {
	tokens int    // the window the server runs the model with; 0 if it did not say
	source string // where tokens comes from, for messages
	server string // "ollama", "llama.cpp", "vllm", "lmstudio", "openrouter", or ""
	// trained is the model's own maximum when the server says it.
	trained int
}

// Probe timeouts: each small request is bounded so that a server that
// does not answer holds a run back little; loading a model into Ollama
// may take a while, but the run's first request would wait for it too.
const (
	probeTimeout = 3 * time.Second
	loadTimeout  = 2 * time.Minute
)

// servedCache remembers windows that were large enough, per endpoint
// and model, for servedTTL: runs in the editor build a new Runner each
// time. A window too small is asked again, so a user who raised it is
// not kept waiting.
var servedCache struct {
	sync.Mutex
	m map[string]servedEntry
}

type servedEntry struct {
	w  servedWindow
	at time.Time
}

const servedTTL = 5 * time.Minute

// probeServed asks cfg's endpoint for the window it serves cfg.Model
// with. It asks only OpenAI-compatible endpoints other than OpenAI's
// own (whose models the table knows).
func probeServed(ctx context.Context, cfg config.Config) servedWindow {
	if cfg.Provider != "openai" || cfg.BaseURL == "" || cfg.Model == "" {
		return servedWindow{}
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || u.Host == "" || strings.HasSuffix(u.Hostname(), "openai.com") {
		return servedWindow{}
	}
	key := cfg.BaseURL + "\x00" + cfg.Model
	servedCache.Lock()
	e, ok := servedCache.m[key]
	servedCache.Unlock()
	if ok && time.Since(e.at) < servedTTL {
		return e.w
	}
	p := prober{base: strings.TrimSuffix(cfg.BaseURL, "/"), model: cfg.Model, key: cfg.APIKey}
	p.root = strings.TrimSuffix(strings.TrimSuffix(p.base, "/v1"), "/api") // …/api/v1 (OpenRouter), …/v1
	w := p.probe(ctx)
	return w
}

// rememberServed caches w for cfg once it proved large enough.
func rememberServed(cfg config.Config, w servedWindow) {
	servedCache.Lock()
	defer servedCache.Unlock()
	if servedCache.m == nil {
		servedCache.m = map[string]servedEntry{}
	}
	servedCache.m[cfg.BaseURL+"\x00"+cfg.Model] = servedEntry{w: w, at: time.Now()}
}

type prober struct {
	base, root, model, key string
}

func (p prober) probe(ctx context.Context) servedWindow {
	if w := p.fromModels(ctx); w.tokens > 0 {
		return w
	}
	if w, ok := p.fromOllama(ctx); ok {
		return w
	}
	if w := p.fromLMStudio(ctx); w.tokens > 0 {
		return w
	}
	return p.fromLlamaCpp(ctx)
}

// fromModels reads the model's entry of GET {base}/models: vLLM's
// max_model_len, OpenRouter's context_length.
func (p prober) fromModels(ctx context.Context) servedWindow {
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			MaxModelLen   int    `json:"max_model_len"`
			ContextLength int    `json:"context_length"`
			TopProvider   struct {
				ContextLength int `json:"context_length"`
			} `json:"top_provider"`
		} `json:"data"`
	}
	if !p.get(ctx, p.base+"/models", &list) {
		return servedWindow{}
	}
	for _, m := range list.Data {
		if m.ID != p.model {
			continue
		}
		switch {
		case m.MaxModelLen > 0:
			return servedWindow{tokens: m.MaxModelLen, source: "max_model_len in /v1/models", server: "vllm"}
		case m.TopProvider.ContextLength > 0:
			return servedWindow{tokens: m.TopProvider.ContextLength, source: "context_length in /models", server: "openrouter"}
		case m.ContextLength > 0:
			return servedWindow{tokens: m.ContextLength, source: "context_length in /models", server: "openrouter"}
		}
	}
	return servedWindow{}
}

// numCtxParam finds "num_ctx 8192" in Ollama's parameters text.
var numCtxParam = regexp.MustCompile(`(?m)^\s*num_ctx\s+(\d+)`)

// fromOllama asks Ollama; ok is false when the endpoint is not Ollama.
func (p prober) fromOllama(ctx context.Context) (servedWindow, bool) {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if !p.post(ctx, probeTimeout, p.root+"/api/show", map[string]string{"model": p.model}, &show) || show.ModelInfo == nil {
		return servedWindow{}, false
	}
	w := servedWindow{server: "ollama"}
	for k, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
			w.trained = int(n)
		}
	}
	if m := numCtxParam.FindStringSubmatch(show.Parameters); m != nil {
		w.tokens, _ = strconv.Atoi(m[1])
		w.source = "the model's num_ctx parameter"
		return w, true
	}
	// The server's default (OLLAMA_CONTEXT_LENGTH) shows only in /api/ps,
	// once the model is loaded.
	if n := p.ollamaLoaded(ctx); n > 0 {
		w.tokens, w.source = n, "Ollama's context length for the loaded model (/api/ps)"
		return w, true
	}
	var loaded struct {
		Done bool `json:"done"`
	}
	if p.post(ctx, loadTimeout, p.root+"/api/generate", map[string]any{"model": p.model}, &loaded) {
		if n := p.ollamaLoaded(ctx); n > 0 {
			w.tokens, w.source = n, "Ollama's context length for the loaded model (/api/ps)"
		}
	}
	return w, true
}

// ollamaLoaded returns the context_length /api/ps reports for the model
// (0 if it is not loaded, or the server is too old to say).
func (p prober) ollamaLoaded(ctx context.Context) int {
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if !p.get(ctx, p.root+"/api/ps", &ps) {
		return 0
	}
	for _, m := range ps.Models {
		for _, n := range []string{m.Name, m.Model} {
			if n == p.model || n == p.model+":latest" {
				return m.ContextLength
			}
		}
	}
	return 0
}

// fromLMStudio reads loaded_context_length from LM Studio's own API.
func (p prober) fromLMStudio(ctx context.Context) servedWindow {
	var list struct {
		Data []struct {
			ID                  string `json:"id"`
			LoadedContextLength int    `json:"loaded_context_length"`
			MaxContextLength    int    `json:"max_context_length"`
		} `json:"data"`
	}
	if !p.get(ctx, p.root+"/api/v0/models", &list) {
		return servedWindow{}
	}
	for _, m := range list.Data {
		if m.ID == p.model && m.LoadedContextLength > 0 {
			return servedWindow{tokens: m.LoadedContextLength, source: "LM Studio's loaded_context_length", server: "lmstudio", trained: m.MaxContextLength}
		}
	}
	return servedWindow{}
}

// fromLlamaCpp reads n_ctx from llama.cpp's /props.
func (p prober) fromLlamaCpp(ctx context.Context) servedWindow {
	var props struct {
		NCtx     int `json:"n_ctx"`
		Defaults struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if !p.get(ctx, p.root+"/props", &props) {
		return servedWindow{}
	}
	n := props.Defaults.NCtx
	if n == 0 {
		n = props.NCtx
	}
	if n == 0 {
		return servedWindow{}
	}
	return servedWindow{tokens: n, source: "n_ctx in llama.cpp's /props", server: "llama.cpp"}
}

func (p prober) get(ctx context.Context, u string, out any) bool {
	return p.do(ctx, probeTimeout, http.MethodGet, u, nil, out)
}

func (p prober) post(ctx context.Context, timeout time.Duration, u string, body, out any) bool {
	b, err := json.Marshal(body)
	if err != nil {
		return false
	}
	return p.do(ctx, timeout, http.MethodPost, u, b, out)
}

// do sends one probe; any failure (no such endpoint, not JSON) is
// "the server did not say".
func (p prober) do(ctx context.Context, timeout time.Duration, method, u string, body []byte, out any) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return false
	}
	// OpenRouter's model list is large; nothing else comes near this.
	return json.NewDecoder(io.LimitReader(resp.Body, 32<<20)).Decode(out) == nil
}
