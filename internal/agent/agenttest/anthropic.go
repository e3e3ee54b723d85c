package agenttest

import (
	"encoding/json"
	"fmt"
)

// Anthropic Messages wire format.

func anthropicCallID(turn, i int, c ToolCall) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("toolu_%d_%d", turn, i)
}

func anthropicStop(t Turn) string {
	if t.Stop != "" {
		return t.Stop
	}
	if len(t.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// anthropicInput is the tool_use input as a JSON value. Malformed raw
// arguments cannot be an object in a non-streamed message, so they are
// sent as a JSON string, which is as wrong as a model can get it there.
func anthropicInput(c ToolCall) any {
	var v map[string]any
	if err := json.Unmarshal([]byte(c.arguments()), &v); err != nil {
		return c.arguments()
	}
	return json.RawMessage(c.arguments())
}

// anthropicUsage is the usage object; input_tokens leaves out the
// tokens read from the cache.
func anthropicUsage(t Turn, in, out int64) map[string]any {
	return map[string]any{
		"input_tokens": max(in-t.CachedTokens, 0), "output_tokens": out,
		"cache_read_input_tokens": t.CachedTokens, "cache_creation_input_tokens": 0,
	}
}

func anthropicMessage(t Turn, req Request) []byte {
	content := []any{}
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for i, c := range t.ToolCalls {
		content = append(content, map[string]any{
			"type": "tool_use", "id": anthropicCallID(req.Index, i, c), "name": c.Name, "input": anthropicInput(c),
		})
	}
	in, out := usageOf(t, req)
	return mustJSON(map[string]any{
		"id": fmt.Sprintf("msg_%d", req.Index), "type": "message", "role": "assistant",
		"model": modelOr(req.Model()), "content": content,
		"stop_reason": anthropicStop(t), "stop_sequence": nil,
		"usage": anthropicUsage(t, in, out),
	})
}

func anthropicEvents(t Turn, req Request) []sseEvent {
	ev := func(name string, v map[string]any) sseEvent {
		v["type"] = name
		return sseEvent{name: name, data: mustJSON(v)}
	}
	in, out := usageOf(t, req)
	events := []sseEvent{
		ev("message_start", map[string]any{"message": map[string]any{
			"id": fmt.Sprintf("msg_%d", req.Index), "type": "message", "role": "assistant",
			"model": modelOr(req.Model()), "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": anthropicUsage(t, in, 1),
		}}),
		ev("ping", map[string]any{}),
	}
	index := 0
	if t.Text != "" {
		events = append(events, ev("content_block_start", map[string]any{
			"index": index, "content_block": map[string]any{"type": "text", "text": ""},
		}))
		for _, piece := range splitText(t.Text) {
			events = append(events, ev("content_block_delta", map[string]any{
				"index": index, "delta": map[string]any{"type": "text_delta", "text": piece},
			}))
		}
		events = append(events, ev("content_block_stop", map[string]any{"index": index}))
		index++
	}
	for i, c := range t.ToolCalls {
		events = append(events, ev("content_block_start", map[string]any{
			"index": index, "content_block": map[string]any{
				"type": "tool_use", "id": anthropicCallID(req.Index, i, c), "name": c.Name, "input": map[string]any{},
			},
		}))
		for _, piece := range splitArgs(c.arguments(), t.ChunkSize) {
			events = append(events, ev("content_block_delta", map[string]any{
				"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece},
			}))
		}
		events = append(events, ev("content_block_stop", map[string]any{"index": index}))
		index++
	}
	events = append(events,
		ev("message_delta", map[string]any{
			"delta": map[string]any{"stop_reason": anthropicStop(t), "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": out},
		}),
		ev("message_stop", map[string]any{}),
	)
	return events
}
