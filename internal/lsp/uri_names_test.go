package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// TestRunEditsFilesWithReservedNames: a workspace folder and files whose
// names hold a space, '#', '%', '?' and non-ASCII letters. The editor
// opens one, the model edits it and creates another; every URI on the
// wire names the right file, so the open buffer is the one edited and the
// new file lands where the model said.
func TestRunEditsFilesWithReservedNames(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "my proj #1 100% é")
	const name, created = "cálc ?#%.go", "nötes 50% #2?.txt"
	calc := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(calc, []byte(calcGo), 0o644); err != nil {
		t.Fatal(err)
	}
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": name, "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": created, "content": "fixed Add\n"})),
		agenttest.TextTurn("Fixed."),
	}})
	ed := fake.New(t, fake.Options{
		Folders: []string{dir},
		InitializationOptions: map[string]any{
			"provider": "openai", "baseUrl": model.URL(), "model": "scripted", "apiKey": testKey, "maxSteps": 5,
		},
	})
	u := ed.OpenFile(calc)
	if s := string(u); strings.ContainsAny(s[len("file://"):], " #?é") {
		t.Fatalf("the editor's URI is not escaped: %s", s)
	}
	f := &runFixture{dir: dir, calc: calc, uri: u, model: model, ed: ed}

	end := f.awaitEnd(t, f.start(t, "catbuddy.fix", f.fixArgs()))
	if end.Outcome != "done" {
		t.Fatalf("end = %+v", end)
	}
	if got := ed.Text(u); !strings.Contains(got, "return a + b") {
		t.Errorf("the open buffer was not edited:\n%s", got)
	}
	newURI := fileuri.FromPath(filepath.Join(dir, created))
	if got := ed.Text(newURI); got != "fixed Add\n" {
		t.Errorf("%s holds %q", created, got)
	}
	// Every file the server's edits named is one of the two, read back
	// from its URI.
	want := map[string]bool{calc: true, filepath.Join(dir, created): true}
	for _, p := range ed.AppliedEdits() {
		for _, dc := range p.Edit.DocumentChanges {
			var u uri.URI
			switch c := dc.(type) {
			case *protocol.TextDocumentEdit:
				u = c.TextDocument.URI
			case *protocol.CreateFile:
				u = c.URI
			}
			if path := pathOf(t, u); !want[path] {
				t.Errorf("an edit named %s (%s), want one of %v", u, path, want)
			}
		}
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != ".catbuddy" { // the run's session and transcript
			names = append(names, e.Name())
		}
	}
	if len(names) != 2 {
		t.Errorf("the folder holds %q, want the two files", names)
	}
	// The transcript, under the same folder, is found from its URI too.
	checkTranscript(t, f, end, "return a + b")
}
