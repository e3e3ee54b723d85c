package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Settings is one source's settings, decoded by the one parser every
// source goes through: the user's and the project's config.json, the
// editor's initializationOptions, workspace/configuration and
// didChangeConfiguration. The JSON shape is Config's (its json tags) plus
// "apiKey", so a field added to Config is read from every source with no
// further plumbing.
type Settings struct {
	Config
	// Unknown names the keys that matched nothing ("modle",
	// "tools.webAlow", "customCommands[0].promt"), sorted. Config files
	// refuse them; the editor's settings warn about them.
	Unknown []string
	// Invalid names the custom commands dropped for breaking the rule of
	// commandcheck.go, and why; the editor shows them to the user.
	Invalid []Ignored
}

// settingsJSON is the JSON shape: Config plus the key, which Config
// itself never serialises.
type settingsJSON struct {
	Config
	APIKey string `json:"apiKey,omitempty"`
}

// ParseSettings decodes raw. null, [] and {} (and nothing at all) are "no
// settings": Neovim encodes an empty Lua table as []. An object with a
// "catbuddy" member is unwrapped (didChangeConfiguration sends every
// extension's settings). Values are checked for their JSON type only;
// LoadConfig validates them (a run with a bad value is refused, naming it).
func ParseSettings(raw []byte) (Settings, error) {
	raw = bytes.TrimSpace(raw)
	if isEmptyJSON(raw) {
		return Settings{}, nil
	}
	if raw[0] != '{' {
		return Settings{}, fmt.Errorf("settings must be a JSON object, got %s", firstBytes(raw))
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	if inner, ok := wrapper["catbuddy"]; ok {
		raw = bytes.TrimSpace(inner)
		if isEmptyJSON(raw) {
			return Settings{}, nil
		}
	}
	// customCommands is decoded on its own: one bad command is dropped
	// and named, not a reason to refuse every other setting.
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	var cmdsRaw json.RawMessage
	for k, v := range obj {
		if strings.EqualFold(k, "customCommands") {
			cmdsRaw = v
			delete(obj, k)
		}
	}
	rest, err := json.Marshal(obj)
	if err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	var s settingsJSON
	if err := json.Unmarshal(rest, &s); err != nil {
		return Settings{}, fmt.Errorf("settings: %w", err)
	}
	var unknown []string
	collectUnknown(raw, reflect.TypeOf(s), "", &unknown)
	sort.Strings(unknown)
	cfg := s.Config
	cfg.APIKey = s.APIKey
	var invalid []Ignored
	if len(cmdsRaw) > 0 && !isEmptyJSON(bytes.TrimSpace(cmdsRaw)) {
		cfg.CustomCommands, invalid = parseCommands(cmdsRaw)
	}
	return Settings{Config: cfg, Unknown: unknown, Invalid: invalid}, nil
}

func isEmptyJSON(raw []byte) bool {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return true
	}
	if (raw[0] == '[' || raw[0] == '{') && len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0 {
		return raw[len(raw)-1] == ']' || raw[len(raw)-1] == '}'
	}
	return false
}

func firstBytes(raw []byte) string {
	if len(raw) > 20 {
		return string(raw[:20]) + "…"
	}
	return string(raw)
}

// collectUnknown appends, with their paths, the keys of the JSON object
// raw that name no field of t, descending into objects and lists of
// objects. Keys match json tags case-insensitively, as encoding/json does.
func collectUnknown(raw []byte, t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		fields := jsonFields(t)
		for k, v := range obj {
			ft, ok := fields[strings.ToLower(k)]
			if !ok {
				*out = append(*out, prefix+k)
				continue
			}
			collectUnknown(v, ft, prefix+k+".", out)
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		for k, v := range obj {
			collectUnknown(v, t.Elem(), prefix+k+".", out)
		}
	case reflect.Slice:
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return
		}
		for i, v := range list {
			collectUnknown(v, t.Elem(), fmt.Sprintf("%s[%d].", strings.TrimSuffix(prefix, "."), i), out)
		}
	}
}

// jsonFields maps the lower-cased json names of t's fields (embedded
// structs flattened) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				if _, shadowed := out[k]; !shadowed {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = f.Type
	}
	return out
}
