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
	// IndexingWait is how many seconds a question waits for the server
	// to finish loading its project before it is answered anyway, marked
	// as possibly incomplete; 0 means DefaultIndexingWait.
	IndexingWait int `json:"indexingWait,omitempty"`
}

// DefaultIndexingWait is the indexingWait, in seconds, when unset.
const DefaultIndexingWait = 20

// MaxIndexingWait is the largest indexingWait accepted.
const MaxIndexingWait = 600

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
		if s.IndexingWait < 0 || s.IndexingWait > MaxIndexingWait {
			return fmt.Errorf("languageServers.%s: indexingWait %d is not between 0 and %d seconds", name, s.IndexingWait, MaxIndexingWait)
		}
		for _, e := range s.Extensions {
			if !strings.HasPrefix(e, ".") || len(e) < 2 {
				return fmt.Errorf("languageServers.%s: extension %q must start with a dot, e.g. \".go\"", name, e)
			}
		}
	}
	return nil
}

// ParseLanguageServerFlag reads one --language-server flag,
// "EXT[,EXT…]=COMMAND [ARG…]", e.g. ".go=gopls" or
// ".ts,.tsx=typescript-language-server --stdio". The server is named
// after its program, so a flag replaces the config files' entry of that
// name.
func ParseLanguageServerFlag(s string) (name string, ls LanguageServer, err error) {
	exts, cmd, ok := strings.Cut(s, "=")
	if !ok {
		return "", LanguageServer{}, fmt.Errorf("%q: want EXTENSIONS=COMMAND, e.g. .go=gopls", s)
	}
	ls.Command = strings.Fields(cmd)
	for _, e := range strings.Split(exts, ",") {
		if e = strings.TrimSpace(e); e != "" {
			ls.Extensions = append(ls.Extensions, e)
		}
	}
	if len(ls.Command) == 0 {
		return "", LanguageServer{}, fmt.Errorf("%q: the command after = is empty, e.g. .go=gopls", s)
	}
	name = ls.Command[0][strings.LastIndex(ls.Command[0], "/")+1:]
	if err := validateLanguageServers(map[string]LanguageServer{name: ls}); err != nil {
		return "", LanguageServer{}, err
	}
	return name, ls, nil
}
