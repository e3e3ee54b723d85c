package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// LanguageServer is one entry of the languageServers setting: a language
// server cb-ls starts itself where no editor answers the language tools
// (`cb-ls run`, `cb-ls tools run`, or an editor without the bridge).
// Because it is a command, a project may name one only once trusted.
type LanguageServer struct {
	// Command is the program and its arguments; it speaks LSP on stdio.
	Command []string `json:"command"`
	// Extensions are the file name endings it answers for: [".go"].
	Extensions []string `json:"extensions"`
	// InitializationOptions is sent in initialize as it is.
	InitializationOptions any `json:"initializationOptions,omitempty"`
}

// mergeLanguageServers lays over's servers over base's by name: a later
// source replaces one server, not the whole list.
func mergeLanguageServers(base, over map[string]LanguageServer) map[string]LanguageServer {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]LanguageServer{}
	}
	maps.Copy(out, over)
	return out
}

// validateLanguageServers refuses an entry that could never start or
// never be asked.
func validateLanguageServers(ls map[string]LanguageServer) error {
	for _, name := range slices.Sorted(maps.Keys(ls)) {
		s := ls[name]
		if len(s.Command) == 0 || strings.TrimSpace(s.Command[0]) == "" {
			return fmt.Errorf("languageServers.%s: command is required (the program and its arguments, e.g. [\"gopls\"])", name)
		}
		if len(s.Extensions) == 0 {
			return fmt.Errorf("languageServers.%s: extensions is required (the file endings it answers for, e.g. [\".go\"])", name)
		}
		for _, e := range s.Extensions {
			if !strings.HasPrefix(e, ".") || len(e) < 2 {
				return fmt.Errorf("languageServers.%s: extension %q must start with a dot, e.g. \".go\"", name, e)
			}
		}
	}
	return nil
}
