package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/catbuddy/cb-ls/internal/config"
	"strings"
)

// editorSettings decodes one of the editor's settings payloads
// (initializationOptions, a workspace/configuration answer, the catbuddy
// section of didChangeConfiguration) with the parser every source uses,
// config.ParseSettings. Unknown keys are named in the log: a misspelt
// setting must not vanish silently, nor stop the others from applying.
func (s *Server) editorSettings(source string, raw []byte) (config.Config, error) {
	set, err := config.ParseSettings(raw)
	if err != nil {
		return config.Config{}, fmt.Errorf("%s: %w", source, err)
	}
	if len(set.Unknown) > 0 {
		s.log.Warn("ignoring unknown catbuddy settings", "source", source, "keys", strings.Join(set.Unknown, ", "))
	}
	return set.Config, nil
}

// catbuddySection extracts settings.catbuddy from a didChangeConfiguration
// payload; editors send every extension's settings there.
func catbuddySection(raw []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf("settings is not an object: %w", err)
	}
	return all["catbuddy"], nil
}
