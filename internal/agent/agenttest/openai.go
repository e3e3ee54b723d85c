package agenttest

import (
	"fmt"
	"net/http"
)

// OpenAI chat-completions wire format.

func openAICallID(turn, i int, c ToolCall) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", turn, i)
}

func openAIFinish(t Turn) string {
	if t.Stop != "" {
		return t.Stop
	}
	if len(t.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func usageOf(t Turn, req Request) (in, out int64) {
	in, out = t.InputTokens, t.OutputTokens
	if in == 0 {
		in = Tokens(len(req.Raw))
	}
	if out == 0 {
		n := len(t.Text)
		for _, c := range t.ToolCalls {
			n += len(c.Name) + len(c.arguments())
		}
		out = Tokens(n)
	}
	return in, out
}

func openAIMessage(t Turn, req Request) []byte {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if t.Text != "" {
		msg["content"] = t.Text
	}
	if t.Refusal != "" {
		msg["refusal"] = t.Refusal
	}
	if len(t.ToolCalls) > 0 {
		var calls []any
		for i, c := range t.ToolCalls {
			calls = append(calls, map[string]any{
				"id": openAICallID(req.Index, i, c), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.arguments()},
			})
		}
		msg["tool_calls"] = calls
	}
	in, out := usageOf(t, req)
	return mustJSON(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", req.Index), "object": "chat.completion",
		"created": 1700000000, "model": modelOr(req.Model()),
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": openAIFinish(t), "logprobs": nil}},
		"usage":   openAIUsage(t, in, out),
	})
}

// openAIUsage is the usage object; prompt_tokens counts cached tokens too.
func openAIUsage(t Turn, in, out int64) map[string]any {
	u := map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	if t.CachedTokens > 0 {
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": t.CachedTokens}
	}
	return u
}

func openAIEvents(t Turn, req Request) []sseEvent {
	id, model := fmt.Sprintf("chatcmpl-%d", req.Index), modelOr(req.Model())
	chunk := func(delta map[string]any, finish any) sseEvent {
		return sseEvent{data: mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		})}
	}
	events := []sseEvent{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, piece := range splitText(t.Text) {
		events = append(events, chunk(map[string]any{"content": piece}, nil))
	}
	for _, piece := range splitText(t.Refusal) {
		events = append(events, chunk(map[string]any{"refusal": piece}, nil))
	}
	for i, c := range t.ToolCalls {
		// The first chunk of a call carries id and name; the arguments
		// follow in pieces that carry only the index, as OpenAI sends them.
		events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": openAICallID(req.Index, i, c), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		for _, piece := range splitArgs(c.arguments(), t.ChunkSize) {
			events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": piece},
			}}}, nil))
		}
	}
	events = append(events, chunk(map[string]any{}, openAIFinish(t)))
	if opts, _ := req.Body["stream_options"].(map[string]any); opts["include_usage"] == true {
		in, out := usageOf(t, req)
		events = append(events, sseEvent{data: mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{},
			"usage":   openAIUsage(t, in, out),
		})})
	}
	return append(events, sseEvent{data: []byte("[DONE]")})
}

func modelOr(m string) string {
	if m == "" {
		return "scripted"
	}
	return m
}

// writeError answers status with an error body in format's shape.
func writeError(w http.ResponseWriter, format Format, status int, code, msg string) {
	if msg == "" {
		msg = defaultErrorMessage(status)
	}
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusTooManyRequests || status >= 500 {
		// Keep SDK retries fast in tests: they honour retry-after-ms.
		w.Header().Set("Retry-After-Ms", "10")
		w.Header().Set("Retry-After", "0")
	}
	w.WriteHeader(status)
	if format == Ollama {
		w.Write(mustJSON(map[string]any{"error": msg}))
		return
	}
	if format == Anthropic {
		if code == "" {
			code = anthropicErrorType(status)
		}
		w.Write(mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": code, "message": msg}}))
		return
	}
	if code == "" {
		code = openAIErrorCode(status)
	}
	w.Write(mustJSON(map[string]any{"error": map[string]any{
		"message": msg, "type": openAIErrorType(status), "param": nil, "code": code,
	}}))
}

func defaultErrorMessage(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "Incorrect API key provided."
	case http.StatusForbidden:
		return "You are not allowed to use this model."
	case http.StatusNotFound:
		return "The model does not exist or you do not have access to it."
	case http.StatusTooManyRequests:
		return "Rate limit reached. Please try again later."
	}
	return fmt.Sprintf("scripted error %d", status)
}

func openAIErrorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

func openAIErrorCode(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "invalid_api_key"
	case http.StatusNotFound:
		return "model_not_found"
	case http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	}
	return ""
}

func anthropicErrorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == 529:
		return "overloaded_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}
