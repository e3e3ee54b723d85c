package tools

import "encoding/json"

// wireSchema is the input schema as the model is sent it: what the
// reflected schema says that changes nothing the model does is left
// out, since every request carries every tool's schema. decodeArgs
// refuses unknown arguments whatever the schema says, so
// "additionalProperties": false goes; a Go slice is inferred as
// ["null", "array"], sent as "array" (null is still accepted).
func wireSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(err) // our own schema
	}
	compactSchema(m)
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}

func compactSchema(m map[string]any) {
	if v, ok := m["additionalProperties"].(bool); ok && !v {
		delete(m, "additionalProperties")
	}
	if ts, ok := m["type"].([]any); ok && len(ts) == 2 && ts[0] == "null" {
		m["type"] = ts[1]
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, p := range props {
			if pm, ok := p.(map[string]any); ok {
				compactSchema(pm)
			}
		}
	}
	if items, ok := m["items"].(map[string]any); ok {
		compactSchema(items)
	}
}

// withoutProperty leaves prop out of the schema the model is sent; the
// tool still accepts it (decodeArgs checks the arguments against the
// input type's own schema). For aliases that models trained on other
// agents send (grep's include, crush's and opencode's name for glob),
// which need no bytes in every request.
func withoutProperty(schema json.RawMessage, prop string) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic(err) // our own schema
	}
	delete(m["properties"].(map[string]any), prop)
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}
