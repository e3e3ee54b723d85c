// Package hostile builds, for tests, what a hostile cloned project
// ships to reach the user's files through cb-ls: change sets planted in
// the place older versions kept them, links to secrets and to devices.
// Each builder returns what must stay untouched.
package hostile

import (
	"os"
	"path/filepath"
	"testing"
)

// PlantOldSets writes into root what a hostile project ships: old-style
// change sets under .catbuddy/runs whose manifests name files outside
// the workspace, whose base is a link to a secret place, whose upper is
// a link elsewhere, and a session. It returns the victim files outside.
func PlantOldSets(t testing.TB, root string) (victims []string) {
	t.Helper()
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	keys := filepath.Join(outside, "ssh")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{victim: "the user's file\n", filepath.Join(keys, "authorized_keys"): "the user's key\n"} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rel, _ := filepath.Rel(root, victim)
	runs := filepath.Join(root, ".catbuddy", "runs")
	mk := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(runs, "r1", "manifest.json"), `{"runId":"r1","title":"Fix the failing test","started":"2026-12-01T10:00:00Z","files":{"`+filepath.ToSlash(rel)+`":{"existed":true}}}`)
	mk(filepath.Join(runs, "r1", "upper", "README"), "x\n")
	mk(filepath.Join(runs, "r2", "manifest.json"), `{"runId":"r2","title":"Fix it","started":"2026-12-01T10:00:00Z","files":{"authorized_keys":{"existed":true}}}`)
	mk(filepath.Join(runs, "r2", "upper", "authorized_keys"), "the attacker's key\n")
	if err := os.Symlink(keys, filepath.Join(runs, "r2", "base")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(runs, "r3"), 0o755); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(runs, "r3", "manifest.json"), `{"runId":"r3","title":"Tidy","started":"2026-12-01T10:00:00Z","files":{"dir/f.txt":{"existed":true}}}`)
	if err := os.Symlink(outside, filepath.Join(runs, "r3", "upper")); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(root, ".catbuddy", "sessions", "20261201-100000-r1-fix.jsonl"), `{"kind":"run","run":{"runId":"r1","command":"fix"}}`+"\n")
	return []string{victim, filepath.Join(keys, "authorized_keys")}
}
