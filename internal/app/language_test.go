package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// languageApp builds an App over a workspace holding files, with one
// language server for .go files running command.
func languageApp(t *testing.T, command []string, files ...string) *App {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	servers := map[string]config.LanguageServer{"ls": {Command: command, Extensions: []string{".go"}}}
	a, err := New(Options{Roots: []string{root}, Mode: guard.ModeAuto, LanguageServers: servers, ProjectTrusted: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// TestLanguageToolsOnlyForTheWorkspacesLanguages: a configured server
// whose language the workspace lacks is not started, and its tools are
// not offered, so the requests carry none of their bytes; a workspace
// with a file of its language offers them while the server starts.
func TestLanguageToolsOnlyForTheWorkspacesLanguages(t *testing.T) {
	// sleep never answers initialize: the server is still starting.
	starting := []string{"sleep", "60"}
	if _, ok := languageApp(t, starting, "README.md", "notes.txt").Registry.Get("lsp"); ok {
		t.Error("the language tools are offered in a workspace without a .go file")
	}
	if _, ok := languageApp(t, starting, "main.go").Registry.Get("lsp"); !ok {
		t.Error("the language tools are not offered in a workspace with a .go file")
	}
}

// TestLanguageToolsWithdrawnWhenNoServerStarts: the only server cannot
// start; the tools leave the registry, so the next run is not offered
// them.
func TestLanguageToolsWithdrawnWhenNoServerStarts(t *testing.T) {
	a := languageApp(t, []string{"/nonexistent/ls"}, "main.go")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, ok := a.Registry.Get("lsp"); !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the language tools are still offered after their only server failed to start")
		}
		time.Sleep(10 * time.Millisecond) // polling the condition, bounded by the deadline
	}
}
