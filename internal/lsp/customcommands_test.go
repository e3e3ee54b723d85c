package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// commandsFixture is editors/testdata/custom_commands.json: one
// customCommands setting, the commands it gives and the message naming
// the rejected ones. The e2e suites of both editors assert the same file.
type commandsFixture struct {
	CustomCommands []any         `json:"customCommands"`
	Commands       []commandInfo `json:"commands"`
	Message        string        `json:"message"`
}

type commandInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func readCommandsFixture(t *testing.T) commandsFixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "editors", "testdata", "custom_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f commandsFixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// shownMessages returns the window/showMessage notifications received.
func shownMessages(t *testing.T, e *fake.Editor) []protocol.ShowMessageParams {
	t.Helper()
	var out []protocol.ShowMessageParams
	for _, raw := range e.Notifications("window/showMessage") {
		var p protocol.ShowMessageParams
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func listCommands(t *testing.T, e *fake.Editor) []commandInfo {
	t.Helper()
	var list []commandInfo
	if err := e.ExecuteCommand("catbuddy.listCommands", nil, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

// TestCustomCommandsFixture: the setting both editors send, in
// initializationOptions and from workspace/configuration as they do,
// gives the fixture's commands and exactly one warning with the
// fixture's words, however often the settings are read again.
func TestCustomCommandsFixture(t *testing.T) {
	fx := readCommandsFixture(t)
	settings := map[string]any{"customCommands": fx.CustomCommands}
	e := fake.New(t, fake.Options{
		Folders:               []string{writeTree(t, "-- x --\n")},
		Server:                lsp.Options{RegisterTools: testTools},
		InitializationOptions: settings,
		Configuration:         map[string]any{"catbuddy": settings},
	})
	e.Await("the warning", func() bool { return len(shownMessages(t, e)) > 0 })
	if got := listCommands(t, e); !cmp.Equal(fx.Commands, got) {
		t.Errorf("commands:\n%+v\nwant:\n%+v", got, fx.Commands)
	}
	e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"catbuddy": settings}})
	listCommands(t, e) // a request after the notification: it has been handled
	want := []protocol.ShowMessageParams{{Type: protocol.MessageTypeWarning, Message: fx.Message}}
	if got := shownMessages(t, e); !cmp.Equal(want, got) {
		t.Errorf("shown:\n%+v\nwant:\n%+v", got, want)
	}
}

// TestInvalidCustomCommandsAreShown: a custom command breaking the rule
// (here one called fix, from initializationOptions, and one without a
// prompt, from workspace/configuration) is not registered, and the user
// is told once with window/showMessage; the built-in fix is untouched.
func TestInvalidCustomCommandsAreShown(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := fake.New(t, fake.Options{Folders: []string{dir}, Server: lsp.Options{RegisterTools: testTools},
		InitializationOptions: map[string]any{"customCommands": []map[string]string{
			{"id": "fix", "prompt": "do something else"},
			{"id": "tests", "prompt": "Write tests for ${selection}"},
		}},
	})
	shown := func() string {
		var all []string
		for _, p := range shownMessages(t, e) {
			all = append(all, p.Message)
		}
		return strings.Join(all, "\n")
	}
	e.Await("the showMessage about fix", func() bool { return strings.Contains(shown(), "customCommands.fix") })
	if msg := shown(); !strings.Contains(msg, "built-in") || strings.Count(msg, "customCommands.fix") != 1 {
		t.Errorf("showMessage: %q", msg)
	}
	var ids []string
	for _, c := range listCommands(t, e) {
		ids = append(ids, c.ID+"="+c.Title)
	}
	if got, want := strings.Join(ids, ","), "fix=Agent: Fix This,explain=Agent: Explain This,ask=Agent: Ask…,tests=Agent: tests"; got != want {
		t.Errorf("commands %s, want %s", got, want)
	}

	e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"catbuddy": map[string]any{
		"customCommands": []map[string]string{{"id": "noprompt"}},
	}}})
	e.Await("the showMessage about noprompt", func() bool { return strings.Contains(shown(), "the prompt is missing") })
	if strings.Count(shown(), "customCommands.fix") != 1 {
		t.Errorf("the complaint about fix was repeated: %q", shown())
	}
}
