package complete

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
)

// temperature is low: a completion is a guess at what comes next, not
// a creative answer.
const temperature = 0.2

// ask sends p to the model m by plan pl and returns its raw answer.
// Cancelling ctx aborts the HTTP request (its connection closes).
func (e *Engine) ask(ctx context.Context, m config.Config, pl plan, p Prompt) (string, error) {
	switch pl.wire {
	case wireGenerate:
		return e.generate(ctx, m, pl, p)
	case wireCompletions:
		return e.completions(ctx, m, pl, p)
	}
	prov, err := e.chatProvider(m)
	if err != nil {
		return "", err
	}
	res, err := prov.Complete(ctx, agent.ModelRequest{
		System:   chatSystem,
		Messages: []agent.Message{{Role: agent.RoleUser, Text: chatMessage(p)}},
	}, nil)
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// chatProvider returns the agent's provider for m, made once per model.
func (e *Engine) chatProvider(m config.Config) (agent.Provider, error) {
	key := fmt.Sprint(m.Provider, "\x00", m.BaseURL, "\x00", m.Model, "\x00", m.APIKey, "\x00", m.MaxTokens)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.chatKey == key && e.chat != nil {
		return e.chat, nil
	}
	prov, err := agent.NewProvider(m)
	if err != nil {
		return nil, err
	}
	e.chat, e.chatKey = prov, key
	return prov, nil
}

// completions asks an OpenAI-compatible POST …/completions, with the
// official SDK, never retried.
func (e *Engine) completions(ctx context.Context, m config.Config, pl plan, p Prompt) (string, error) {
	prompt, suffix, _, stop := fimText(p, pl.format)
	client := openai.NewClient(option.WithBaseURL(m.BaseURL), option.WithAPIKey(m.APIKey),
		option.WithMaxRetries(0), option.WithHTTPClient(e.http))
	params := openai.CompletionNewParams{
		Model:       openai.CompletionNewParamsModel(m.Model),
		Prompt:      openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
		MaxTokens:   openai.Int(int64(m.MaxTokens)),
		Temperature: openai.Float(temperature),
	}
	if pl.format == config.FIMSuffix {
		params.Suffix = openai.String(suffix)
	}
	if len(stop) > 0 {
		params.Stop = openai.CompletionNewParamsStopUnion{OfStringArray: stop}
	}
	res, err := client.Completions.New(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return "", fmt.Errorf("completions at %s (model %s): %w", m.BaseURL, m.Model, redactErr(err, m.APIKey))
	}
	if len(res.Choices) == 0 {
		return "", nil
	}
	return res.Choices[0].Text, nil
}

// generateRequest is Ollama's POST /api/generate.
type generateRequest struct {
	Model   string         `json:"model"`
	Prompt  string         `json:"prompt"`
	Suffix  string         `json:"suffix,omitempty"`
	System  string         `json:"system,omitempty"`
	Raw     bool           `json:"raw,omitempty"`
	Stream  bool           `json:"stream"`
	Options map[string]any `json:"options"`
}

// generate asks Ollama's own API: with suffix, Ollama renders the
// model's FIM template; raw, the prompt already holds the tokens.
func (e *Engine) generate(ctx context.Context, m config.Config, pl plan, p Prompt) (string, error) {
	prompt, suffix, raw, stop := fimText(p, pl.format)
	opts := map[string]any{"num_predict": m.MaxTokens, "temperature": temperature}
	if len(stop) > 0 {
		opts["stop"] = stop
	}
	return e.postGenerate(ctx, m, generateRequest{Model: m.Model, Prompt: prompt, Suffix: suffix, Raw: raw, Options: opts})
}

// postGenerate sends one /api/generate request and returns its answer.
func (e *Engine) postGenerate(ctx context.Context, m config.Config, g generateRequest) (string, error) {
	body, err := json.Marshal(g)
	if err != nil {
		return "", err
	}
	url := strings.TrimSuffix(m.BaseURL, "/") + "/api/generate"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("ollama generate %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := e.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return "", fmt.Errorf("ollama at %s: %w", m.BaseURL, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return "", fmt.Errorf("ollama at %s: %w", m.BaseURL, err)
	}
	var out struct {
		Response string `json:"response"`
		Error    string `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return "", fmt.Errorf("ollama at %s: HTTP %d, not JSON: %.200s", m.BaseURL, res.StatusCode, data)
	}
	if res.StatusCode != http.StatusOK || out.Error != "" {
		return "", fmt.Errorf("ollama at %s (model %s): HTTP %d: %s", m.BaseURL, m.Model, res.StatusCode, out.Error)
	}
	return out.Response, nil
}

// redactErr keeps the key out of an error's text.
func redactErr(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[redacted]"))
}
