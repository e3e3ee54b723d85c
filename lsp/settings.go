package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/catbuddy/cb-ls/agent"
)

// settings are the catbuddy keys of initializationOptions,
// workspace/didChangeConfiguration (settings.catbuddy) and
// workspace/configuration. Absent keys leave the current value alone.
type settings struct {
	Provider       *string         `json:"provider"`
	Model          *string         `json:"model"`
	BaseURL        *string         `json:"baseUrl"`
	APIKey         *string         `json:"apiKey"`
	MaxSteps       *int            `json:"maxSteps"`
	Mode           *string         `json:"mode"`
	CustomCommands []agent.Command `json:"customCommands"`
}

// parseSettings decodes raw (null or absent is no settings). Unknown keys
// are ignored: clients send their own settings alongside ours.
func parseSettings(raw []byte) (settings, error) {
	var s settings
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("decode settings: %w", err)
	}
	if s.MaxSteps != nil && *s.MaxSteps < 0 {
		return s, fmt.Errorf("maxSteps must not be negative (got %d)", *s.MaxSteps)
	}
	return s, nil
}

// apply returns c with the settings that are present laid over it.
func (s settings) apply(c agent.Config) agent.Config {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&c.Provider, s.Provider)
	set(&c.Model, s.Model)
	set(&c.BaseURL, s.BaseURL)
	set(&c.APIKey, s.APIKey)
	if s.MaxSteps != nil {
		c.MaxSteps = *s.MaxSteps
	}
	if s.CustomCommands != nil {
		c.CustomCommands = s.CustomCommands
	}
	return c
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
