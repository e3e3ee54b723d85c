package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

// These tests check that cb-ls changes --keep never loses the user's
// work: what the user did to a file since the run touched it wins, the
// change stays pending with the reason, and the exit status says so.

// projectWith is a folder for pendingRun holding files.
func projectWith(t *testing.T, files map[string]string) string {
	t.Helper()
	root := runEnv(t, agenttest.NewServer(t, agenttest.Script{}), "openai")
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// execCall is the exec tool writing over the run's layer.
func execCall(command string) agenttest.ToolCall {
	return agenttest.Call("exec", map[string]any{"command": command, "write": true, "reason": "as the task says"})
}

// The run changed notes.txt and the user deleted it: every cb-ls
// changes is a new process over the stored set, and none lists it as
// created nor re-creates it.
func TestChangesKeepDoesNotResurrectADeletedFile(t *testing.T) {
	needsLayer(t)
	root := projectWith(t, map[string]string{"notes.txt": "one\n", "other.txt": "x\n"})
	read := func(p string) agenttest.ToolCall { return agenttest.Call("read_file", map[string]any{"path": p}) }
	pendingRun(t, root, read("notes.txt"), writeCall("notes.txt", "ONE\n"), read("other.txt"), writeCall("other.txt", "X\n"))
	if err := os.Remove(filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := changes(t, "--root", root)
	if code != 0 || !strings.Contains(out, "notes.txt (changed)") {
		t.Fatalf("listing: exit %d, want notes.txt (changed)\n%s%s", code, out, errOut)
	}
	code, out, errOut = changes(t, "--root", root, "--keep")
	if code != 1 || !strings.Contains(out, "notes.txt was deleted or renamed") {
		t.Errorf("keep: exit %d, want 1 naming notes.txt as deleted\n%s%s", code, out, errOut)
	}
	if got := readOr(t, filepath.Join(root, "notes.txt")); !strings.HasPrefix(got, "<") {
		t.Errorf("keep re-created notes.txt: %q", got)
	}
	if got := readOr(t, filepath.Join(root, "other.txt")); got != "X\n" {
		t.Errorf("other.txt = %q, want the run's change kept", got)
	}
	if code, out, _ := changes(t, "--root", root); code != 0 || !strings.Contains(out, "notes.txt (changed)") {
		t.Errorf("after the keep notes.txt is not pending: exit %d\n%s", code, out)
	}
}

// A command's ignored output and a command's deletion, each of a file
// the user edited since: the keep leaves both pending with the reason
// and keeps the command's other changes.
func TestChangesKeepLeavesTheUsersLaterEdits(t *testing.T) {
	needsLayer(t)
	root := projectWith(t, map[string]string{
		".gitignore": "settings.local\n", "settings.local": "a=1\n", "old.txt": "old\n", "gone.txt": "gone\n",
	})
	pendingRun(t, root, execCall("echo b=2 >> settings.local && rm old.txt gone.txt"))
	for rel, text := range map[string]string{"settings.local": "a=1\nmine=3\n", "old.txt": "old\nmine\n"} {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := changes(t, "--root", root, "--keep")
	if code != 1 || !strings.Contains(out, "settings.local changed since the command ran") || !strings.Contains(out, "old.txt changed since the run deleted it") {
		t.Errorf("keep: exit %d, want 1 naming settings.local and old.txt\n%s%s", code, out, errOut)
	}
	if got := readOr(t, filepath.Join(root, "settings.local")); got != "a=1\nmine=3\n" {
		t.Errorf("settings.local = %q: the user's edit was overwritten", got)
	}
	if got := readOr(t, filepath.Join(root, "old.txt")); got != "old\nmine\n" {
		t.Errorf("old.txt = %q: the user's edit was deleted", got)
	}
	if got := readOr(t, filepath.Join(root, "gone.txt")); !strings.HasPrefix(got, "<") {
		t.Errorf("gone.txt = %q, want the command's deletion kept", got)
	}
	if code, out, _ := changes(t, "--root", root); code != 0 || !strings.Contains(out, "settings.local") || !strings.Contains(out, "old.txt (deleted)") {
		t.Errorf("after the keep: exit %d, want both still pending\n%s", code, out)
	}
}
