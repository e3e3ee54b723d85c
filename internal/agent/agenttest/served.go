package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Served makes the server describe the context window it runs its
// model with, the way local and routing servers do, so that tests can
// check what a client learns from it.
type Served struct {
	// Kind is the server imitated: "ollama" (POST /api/show, GET /api/ps,
	// POST /api/generate to load), "llamacpp" (GET /props), "vllm"
	// (max_model_len in GET /v1/models), "openrouter" (context_length in
	// GET /v1/models) or "lmstudio" (GET /api/v0/models).
	Kind string `json:"kind"`
	// Window is the context, in tokens, the server runs the model with.
	Window int `json:"window"`
	// Trained is the model's own maximum (Ollama's model_info, LM
	// Studio's max_context_length); 0 means 131072.
	Trained int `json:"trained,omitempty"`
	// NumCtx (Ollama) puts Window in the model's parameters as num_ctx;
	// otherwise Window is the server's default (OLLAMA_CONTEXT_LENGTH),
	// seen only in /api/ps once the model is loaded.
	NumCtx bool `json:"num_ctx,omitempty"`
	// Loaded (Ollama, LM Studio) starts with the model in memory.
	Loaded bool `json:"loaded,omitempty"`
}

func (sv *Served) trained() int {
	if sv.Trained > 0 {
		return sv.Trained
	}
	return 131072
}

// serveWindow answers the endpoints Served describes; it reports
// whether it answered.
func (s *Server) serveWindow(w http.ResponseWriter, r *http.Request, path string) bool {
	sv := s.script.Served
	if sv == nil {
		return false
	}
	reply := func(v any) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Write(mustJSON(v))
		return true
	}
	model := func() string {
		var body struct {
			Model string `json:"model"`
			Name  string `json:"name"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		if body.Model == "" {
			return body.Name
		}
		return body.Model
	}
	switch {
	case sv.Kind == "ollama" && r.Method == http.MethodPost && path == "/api/show":
		m := model()
		s.noteProbe("show " + m)
		params := "stop \"<|im_end|>\""
		if sv.NumCtx {
			params = fmt.Sprintf("num_ctx                        %d\n%s", sv.Window, params)
		}
		return reply(map[string]any{
			"modelfile":  "FROM " + m,
			"parameters": params,
			"details":    map[string]any{"family": "qwen2", "parameter_size": "7.6B"},
			"model_info": map[string]any{"general.architecture": "qwen2", "qwen2.context_length": sv.trained(), "qwen2.embedding_length": 3584},
		})
	case sv.Kind == "ollama" && r.Method == http.MethodGet && path == "/api/ps":
		s.noteProbe("ps")
		s.mu.Lock()
		loaded := sv.Loaded
		s.mu.Unlock()
		models := []any{}
		if loaded {
			models = append(models, map[string]any{"name": "scripted:latest", "model": "scripted:latest", "size": 1 << 30, "context_length": sv.Window})
		}
		return reply(map[string]any{"models": models})
	case sv.Kind == "ollama" && r.Method == http.MethodPost && path == "/api/generate":
		m := model()
		s.noteProbe("load " + m)
		s.mu.Lock()
		sv.Loaded = true
		s.mu.Unlock()
		return reply(map[string]any{"model": m, "response": "", "done": true, "done_reason": "load"})
	case sv.Kind == "llamacpp" && r.Method == http.MethodGet && path == "/props":
		s.noteProbe("props")
		return reply(map[string]any{"default_generation_settings": map[string]any{"n_ctx": sv.Window}, "total_slots": 1})
	case sv.Kind == "lmstudio" && r.Method == http.MethodGet && path == "/api/v0/models":
		s.noteProbe("lmstudio models")
		entry := map[string]any{"id": "scripted", "object": "model", "type": "llm", "max_context_length": sv.trained()}
		s.mu.Lock()
		loaded := sv.Loaded
		s.mu.Unlock()
		if loaded {
			entry["state"], entry["loaded_context_length"] = "loaded", sv.Window
		} else {
			entry["state"] = "not-loaded"
		}
		return reply(map[string]any{"object": "list", "data": []any{entry}})
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models") && (sv.Kind == "vllm" || sv.Kind == "openrouter"):
		s.noteProbe("models")
		entry := map[string]any{"id": "scripted", "object": "model", "created": 0, "owned_by": "agenttest"}
		if sv.Kind == "vllm" {
			entry["max_model_len"] = sv.Window
		} else {
			entry["context_length"] = sv.Window
			entry["top_provider"] = map[string]any{"context_length": sv.Window}
		}
		return reply(map[string]any{"object": "list", "data": []any{entry}})
	}
	return false
}

// noteProbe records a request for the window, for Probes.
func (s *Server) noteProbe(what string) {
	s.mu.Lock()
	s.probes = append(s.probes, what)
	s.mu.Unlock()
}

// Probes returns the requests for the window Served answered, in order
// ("show scripted", "ps", "load scripted", "props", "models", …).
func (s *Server) Probes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.probes...)
}
