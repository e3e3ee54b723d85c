package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
)

// The models offered in the session's model picker come from the
// configured endpoint where it lists them: GET …/models on an
// OpenAI-compatible server (OpenAI, vLLM, LM Studio, Ollama's /v1),
// Ollama's own /api/tags when that fails, and Anthropic's /v1/models.
// Where none answers, the configured model is the only choice.

// modelsTimeout bounds each listing request: session/new waits for it.
const modelsTimeout = 3 * time.Second

// modelsTTL is how long a listing is reused: every session/new of a
// connection would otherwise ask again.
const modelsTTL = 5 * time.Minute

var modelsCache struct {
	sync.Mutex
	m map[string]modelsEntry
}

type modelsEntry struct {
	ids []string
	at  time.Time
}

// availableModels lists cfg's endpoint's models, cfg.Model always among
// them (first when the endpoint does not list it).
func availableModels(ctx context.Context, cfg config.Config) []string {
	key := cfg.Provider + "\x00" + cfg.BaseURL + "\x00" + cfg.APIKey
	modelsCache.Lock()
	e, ok := modelsCache.m[key]
	modelsCache.Unlock()
	if !ok || time.Since(e.at) > modelsTTL {
		ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
		ids, err := listModels(ctx, cfg)
		cancel()
		if err != nil {
			ids = nil // not cached: the server may be starting
		} else {
			e = modelsEntry{ids: ids, at: time.Now()}
			modelsCache.Lock()
			if modelsCache.m == nil {
				modelsCache.m = map[string]modelsEntry{}
			}
			modelsCache.m[key] = e
			modelsCache.Unlock()
		}
		e.ids = ids
	}
	out := slices.Clone(e.ids)
	if cfg.Model != "" && !slices.Contains(out, cfg.Model) {
		out = append([]string{cfg.Model}, out...)
	}
	return out
}

// listModels asks cfg's endpoint for its models.
func listModels(ctx context.Context, cfg config.Config) ([]string, error) {
	base := strings.TrimSuffix(cfg.BaseURL, "/")
	if base == "" {
		return nil, fmt.Errorf("no endpoint")
	}
	if cfg.Provider == "anthropic" {
		var body struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		h := map[string]string{"x-api-key": cfg.APIKey, "anthropic-version": "2023-06-01"}
		if err := getJSON(ctx, strings.TrimSuffix(base, "/v1")+"/v1/models?limit=100", h, &body); err != nil {
			return nil, err
		}
		var ids []string
		for _, d := range body.Data {
			ids = append(ids, d.ID)
		}
		return ids, nil
	}
	var h map[string]string
	if cfg.APIKey != "" {
		h = map[string]string{"Authorization": "Bearer " + cfg.APIKey}
	}
	var openai struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err := getJSON(ctx, base+"/models", h, &openai)
	if err == nil && len(openai.Data) > 0 {
		ids := make([]string, 0, len(openai.Data))
		for _, d := range openai.Data {
			ids = append(ids, d.ID)
		}
		slices.Sort(ids)
		return ids, nil
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if terr := getJSON(ctx, strings.TrimSuffix(base, "/v1")+"/api/tags", h, &tags); terr != nil {
		if err == nil {
			err = terr
		}
		return nil, err
	}
	ids := make([]string, 0, len(tags.Models))
	for _, m := range tags.Models {
		ids = append(ids, m.Name)
	}
	slices.Sort(ids)
	return ids, nil
}

// getJSON GETs url with headers and decodes the JSON answer into v.
func getJSON(ctx context.Context, url string, headers map[string]string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, res.Status)
	}
	return json.NewDecoder(io.LimitReader(res.Body, 4<<20)).Decode(v)
}
