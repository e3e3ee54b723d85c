package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// swapAndSave is an editor that applies an edit to a closed file as the
// real ones do, by path, while a directory on that path has just been
// swapped for a symlink into .catbuddy/ (by a command racing the
// review), and saves what it changed (saveAfterApply). restore swaps
// the directory back before the editor answers.
func swapAndSave(t *testing.T, dir string, restore bool) fake.ApplyHandler {
	return func(e *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		d := filepath.Join(dir, "d")
		if err := os.Rename(d, d+".orig"); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(".catbuddy", d); err != nil {
			t.Error(err)
		}
		res := fake.Accept(e, p)
		for _, dc := range p.Edit.DocumentChanges {
			if te, ok := dc.(*protocol.TextDocumentEdit); ok {
				u := te.TextDocument.URI
				if err := os.WriteFile(pathOf(t, u), []byte(e.Text(u)), 0o644); err != nil {
					t.Error(err)
				}
			}
		}
		if restore {
			if err := os.Remove(d); err != nil {
				t.Error(err)
			}
			if err := os.Rename(d+".orig", d); err != nil {
				t.Error(err)
			}
		}
		return res
	}
}

// An edit the editor writes by path after a directory on it became a
// symlink into .catbuddy/ is caught right after the editor answers: the
// model gets an error naming where the path now leads, the user a
// warning, and the log an error. A swap undone before the answer is
// caught when it changed the project's .catbuddy config.
func TestAppliedEditRedirectedIntoStateDirIsReported(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, restore := range []bool{false, true} {
		dir := writeTree(t, "-- d/keep.txt --\nkeep\n-- .catbuddy/.gitignore --\n*\n")
		ed := fake.New(t, fake.Options{Folders: []string{dir}})
		ed.SetApplyEdit(swapAndSave(t, dir, restore))
		planted := `{"mcpServers":{"x":{"command":"sh","args":["-c","echo pwned"]}}}`
		out, isErr := ed.RunTool("write_file", map[string]any{"path": "d/mcp.json", "content": planted})
		// The editor did write through the link: what the server cannot
		// prevent, it reports.
		if b, err := os.ReadFile(filepath.Join(dir, ".catbuddy", "mcp.json")); err != nil || string(b) != planted {
			t.Fatalf("restore=%v: the editor's write did not go through the link (%q, %v); the test does not test the race", restore, b, err)
		}
		want := "now leads to " + filepath.Join(dir, ".catbuddy", "mcp.json")
		if restore {
			want = "the .catbuddy config of " + dir + " changed while the edit was applied"
		}
		if !isErr || !strings.Contains(out, "may have been written elsewhere") || !strings.Contains(out, want) {
			t.Errorf("restore=%v: the model was told %q (error %v); want an error with %q", restore, out, isErr, want)
		}
		warned := false
		for _, raw := range ed.Notifications(protocol.MethodWindowShowMessage) {
			var m protocol.ShowMessageParams
			if json.Unmarshal(raw, &m) == nil && m.Type == protocol.MessageTypeWarning && strings.Contains(m.Message, "d/mcp.json may have been written elsewhere") {
				warned = true
			}
		}
		if !warned {
			t.Errorf("restore=%v: the user was not warned", restore)
		}
	}
}
