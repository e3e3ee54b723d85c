package lsp

import (
	"strings"
	"testing"
)

// TestFixFallback: when the run engine does not register catbuddy.fix, the
// fallback answers at once with "no model configured".
func TestFixFallback(t *testing.T) {
	s := newServer(Options{})
	delete(s.commands, CmdFix)
	s.registerFallbackCommands()
	h, ok := s.commands[CmdFix]
	if !ok {
		t.Fatal("no catbuddy.fix after registerFallbackCommands")
	}
	if _, err := h(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "no model configured") {
		t.Errorf("fallback catbuddy.fix: %v", err)
	}
}
