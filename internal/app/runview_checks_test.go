package app

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/catbuddy/cb-ls/internal/config"
)

// RunViewServers: "auto" adds the servers found on PATH for the files no
// configured server answers for, "configured" keeps the setting alone,
// "off" starts none.
func TestRunViewServers(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"gopls", "pyright-langserver"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	pylsp := config.LanguageServer{Command: []string{"pylsp"}, Extensions: []string{".py"}}
	cfg := config.Config{LanguageServers: map[string]config.LanguageServer{"pylsp": pylsp}}

	auto := RunViewServers(cfg)
	if got := slices.Sorted(maps.Keys(auto)); !slices.Equal(got, []string{"gopls", "pylsp", "pyright"}) {
		t.Fatalf("auto: %v, want gopls, pylsp and pyright (typescript-language-server is not on PATH)", got)
	}
	if got := auto["pyright"].Extensions; !slices.Equal(got, []string{".pyi"}) {
		t.Errorf("pyright answers %v, want only .pyi (pylsp is configured for .py)", got)
	}
	cfg.RunViewServers = config.RunViewServersConfigured
	if got := slices.Sorted(maps.Keys(RunViewServers(cfg))); !slices.Equal(got, []string{"pylsp"}) {
		t.Errorf("configured: %v, want pylsp", got)
	}
	cfg.RunViewServers = config.RunViewServersOff
	if got := RunViewServers(cfg); len(got) != 0 {
		t.Errorf("off: %v, want none", got)
	}
}
