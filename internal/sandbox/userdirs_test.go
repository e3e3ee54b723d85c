//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxUserDirsUnderTemp: wherever the user's catbuddy config and
// state live under the system temp directory (XDG_* in a temp dir of
// their own or inside the workspace, a home under /tmp), whether they
// exist yet or not, a workspace under the temp directory is read-only by
// default and writable with approval; the private namespaces are used
// (no fallback to split grants, the private /tmp stays writable), and
// the user dirs and the secrets stay hidden.
func TestSandboxUserDirsUnderTemp(t *testing.T) {
	needsNamespaces(t)
	for _, layout := range []string{"own temp dirs", "own temp dirs, missing", "home under temp, missing", "inside the workspace, missing"} {
		t.Run(layout, func(t *testing.T) {
			c := newSandboxCase(t)
			var cfg, state string
			switch layout {
			case "own temp dirs", "own temp dirs, missing":
				cfg, state = t.TempDir(), t.TempDir()
			case "home under temp, missing":
				cfg, state = filepath.Join(c.home, ".config"), filepath.Join(c.home, ".local", "state")
				os.RemoveAll(filepath.Join(cfg, "catbuddy"))
				os.RemoveAll(filepath.Join(state, "catbuddy"))
			case "inside the workspace, missing":
				cfg, state = filepath.Join(c.root, "xdg-config"), filepath.Join(c.root, "xdg-state")
			}
			t.Setenv("XDG_CONFIG_HOME", cfg)
			t.Setenv("XDG_STATE_HOME", state)
			cfgFile, trustFile := filepath.Join(cfg, "catbuddy", "config.json"), filepath.Join(state, "catbuddy", "trust.json")
			if !strings.HasSuffix(layout, "missing") {
				writeTestFile(t, cfgFile, "PRIVATE-KEY-xdg-config")
				writeTestFile(t, trustFile, "PRIVATE-KEY-xdg-trust")
			}
			if !strings.HasPrefix(cfg, filepath.Clean(os.TempDir())) || !strings.HasPrefix(c.root, filepath.Clean(os.TempDir())) {
				t.Fatalf("config %s or workspace %s is not under %s", cfg, c.root, os.TempDir())
			}

			for _, attack := range []string{"echo gone > keep.txt", "rm -f src/a.go", "touch new.txt", "mkdir made"} {
				c.run(attack, Policy{})
			}
			c.fileIs("keep.txt", "keep")
			c.fileIs("src/a.go", "package a")
			c.absent("new.txt")
			c.absent("made")

			reach := `cat "` + cfgFile + `" "` + trustFile + `" "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials"; ls -A "` + filepath.Dir(cfgFile) + `" "` + filepath.Dir(trustFile) + `"; ` +
				`echo '{"mcpServers":{}}' > "` + filepath.Join(cfg, "catbuddy", "mcp.json") + `"; echo '{}' > "` + trustFile + `"; `
			out := c.run(reach+`echo changed > keep.txt && touch new.txt && mkdir made && echo private > /tmp/top-level && cat /tmp/top-level`, Policy{WriteWorkspace: true})
			if !strings.Contains(out, "private user, mount, network and PID namespaces") || mountsBroken.Load() {
				t.Fatalf("the command did not run in the private namespaces: %q", out)
			}
			if !strings.Contains(out, "private\n") {
				t.Errorf("the private /tmp is not writable at its top: %q", out)
			}
			c.fileIs("keep.txt", "changed\n")
			c.fileIs("new.txt", "")
			if fi, err := os.Stat(filepath.Join(c.root, "made")); err != nil || !fi.IsDir() {
				t.Errorf("an approved mkdir in the workspace root failed: %q", out)
			}
			if strings.Contains(out, "PRIVATE-KEY") || strings.Contains(out, "\nconfig.json\n") || strings.Contains(out, "\ntrust.json\n") {
				t.Errorf("the user's config, state or a secret was read or listed: %q", out)
			}
			if _, err := os.Stat(filepath.Join(cfg, "catbuddy", "mcp.json")); err == nil {
				t.Errorf("a command wrote into the user's config dir: %q", out)
			}
			if b, err := os.ReadFile(trustFile); err == nil && string(b) != "PRIVATE-KEY-xdg-trust" {
				t.Errorf("a command changed the trust decisions: %q", b)
			}
		})
	}
}
