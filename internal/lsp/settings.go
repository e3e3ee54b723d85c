package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
	"go.lsp.dev/protocol"
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
	s.reportInvalid(set.Invalid)
	return set.Config, nil
}

// reportInvalid tells the user, with window/showMessage as gopls does for
// bad options, which settings were dropped and why. The same complaint is
// not repeated: settings are read again before every run. Before the
// connection is initialized the message waits for initialized.
func (s *Server) reportInvalid(invalid []config.Ignored) {
	msg := invalidMessage(invalid)
	s.mu.Lock()
	changed := msg != s.invalidShown
	s.invalidShown = msg
	ready := s.state != stateNew
	if !ready {
		s.invalidPending = msg
	}
	s.mu.Unlock()
	if changed && msg != "" && ready {
		s.showMessage(s.baseCtx, protocol.MessageTypeWarning, msg)
	}
}

// invalidMessage is the one message naming every dropped setting and
// why, or "". It names a setting by its key (customCommands.fix,
// customCommands[3]), never by its value as the editor encoded it, so
// that the same settings give the same words in every editor.
func invalidMessage(invalid []config.Ignored) string {
	if len(invalid) == 0 {
		return ""
	}
	parts := make([]string, len(invalid))
	for i, ig := range invalid {
		parts[i] = fmt.Sprintf("catbuddy.%s: %s", ig.Key, ig.Reason)
	}
	return "cb-ls: invalid settings ignored: " + strings.Join(parts, "; ")
}

// flushInvalid shows the complaint kept back during initialize.
func (s *Server) flushInvalid(ctx context.Context) {
	s.mu.Lock()
	msg := s.invalidPending
	s.invalidPending = ""
	s.mu.Unlock()
	if msg != "" {
		s.showMessage(ctx, protocol.MessageTypeWarning, msg)
	}
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
