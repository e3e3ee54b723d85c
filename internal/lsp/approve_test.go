package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// execEditor is a fake editor on a workspace holding keep.txt, with the
// user's config directory in a temporary place holding userConfig.
func execEditor(t *testing.T, userConfig string) (*fake.Editor, string, string) {
	t.Helper()
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	cfg := filepath.Join(cfgHome, "catbuddy", "config.json")
	if userConfig != "" {
		os.MkdirAll(filepath.Dir(cfg), 0o700)
		if err := os.WriteFile(cfg, []byte(userConfig), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root := writeTree(t, "-- keep.txt --\nkeep\n")
	return newEditor(t, root), root, cfg
}

// noSandbox is a user config turning the sandbox off: every command not
// known to only read asks, as on a system without the sandbox.
const noSandbox = `{"tools":{"execSandbox":false}}`

func keepSurvives(t *testing.T, root, after string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(root, "keep.txt")); err != nil || string(b) != "keep\n" {
		t.Fatalf("after %q keep.txt = %q, %v", after, b, err)
	}
}

// The commands that changed or deleted keep.txt unasked now never run
// without the user: the guard refuses what it cannot check, and without
// a sandbox the rest asks first (the fake editor dismisses every
// question).
func TestExecRedTeamInEditor(t *testing.T) {
	e, root, _ := execEditor(t, noSandbox)
	refused := map[string]string{
		"cd .. && rm -rf " + filepath.Base(root): "deletes the workspace root",
		"$(echo rm) -f keep.txt":                 "known only at run time",
		"`echo rm` -rf ~":                        "known only at run time",
		"$(echo rm) -rf ~":                       "known only at run time",
		"echo cm0gLXJmIH4= | base64 -d | sh":     "runs data piped into it",
	}
	for cmd, why := range refused {
		out, isErr := e.RunTool("exec", map[string]any{"command": cmd})
		if !isErr || !strings.Contains(out, why) {
			t.Errorf("%q = %q, want a refusal mentioning %q", cmd, out, why)
		}
		keepSurvives(t, root, cmd)
	}
	if n := len(e.Questions()); n != 0 {
		t.Fatalf("refused commands asked %d questions", n)
	}
	asked := []string{"rm keep.txt", "echo gone > keep.txt", "sed -i s/keep/lost/ keep.txt"}
	for _, cmd := range asked {
		for _, write := range []bool{false, true} {
			out, isErr := e.RunTool("exec", map[string]any{"command": cmd, "write": write})
			if !isErr || !strings.Contains(out, "the user rejected running this command; nothing ran") {
				t.Errorf("%q (write %v) dismissed = %q", cmd, write, out)
			}
			keepSurvives(t, root, cmd)
		}
	}
	if n := len(e.Questions()); n != 2*len(asked) {
		t.Fatalf("%d questions, want %d", n, 2*len(asked))
	}
}

// With the full sandbox the same commands run at once, read-only.
func TestExecRedTeamInEditorConfined(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Full, "full confinement", info.Summary)
	e, root, _ := execEditor(t, "")
	for _, cmd := range []string{"rm keep.txt", "echo gone > keep.txt", "sed -i s/keep/lost/ keep.txt"} {
		out, _ := e.RunTool("exec", map[string]any{"command": cmd})
		if !strings.Contains(out, "Read-only file system") {
			t.Errorf("%q = %q", cmd, out)
		}
		keepSurvives(t, root, cmd)
	}
	if n := len(e.Questions()); n != 0 {
		t.Errorf("confined commands asked %d questions", n)
	}
}

func TestExecQuestionRunRejectAlways(t *testing.T) {
	e, root, userCfg := execEditor(t, noSandbox)

	// The question names the command, the cwd and the reason.
	e.SetMessageRequest(fake.Choose("Reject"))
	out, isErr := e.RunTool("exec", map[string]any{"command": "rm keep.txt", "write": true, "reason": "remove the stale fixture"})
	if !isErr || !strings.Contains(out, "the user rejected") {
		t.Fatalf("rejected = %q", out)
	}
	keepSurvives(t, root, "a rejected rm")
	q := e.Questions()[0]
	for _, want := range []string{"rm keep.txt", "in " + root, "Reason: remove the stale fixture", "change files in the workspace"} {
		if !strings.Contains(q.Message, want) {
			t.Errorf("question %q lacks %q", q.Message, want)
		}
	}
	var titles []string
	for _, a := range q.Actions {
		titles = append(titles, a.Title)
	}
	if got := strings.Join(titles, "|"); got != `Reject|Run|Always allow "rm"` {
		t.Errorf("actions = %s", got)
	}
	if q.Type != protocol.MessageTypeWarning {
		t.Errorf("type = %v", q.Type)
	}

	// Run: the model is told what changed, FileStates are dropped and the
	// editor hears which files changed.
	if out, _ := e.RunTool("read_file", map[string]any{"path": "keep.txt"}); !strings.Contains(out, "keep") {
		t.Fatalf("read = %q", out)
	}
	e.SetMessageRequest(fake.Choose("Run"))
	out, isErr = e.RunTool("exec", map[string]any{"command": "echo kept > keep.txt && touch new.txt", "write": true, "reason": "r"})
	if isErr || !strings.Contains(out, "changed  keep.txt") || !strings.Contains(out, "created  new.txt") || !strings.Contains(out, "[approved by the user]") {
		t.Fatalf("approved = %q", out)
	}
	if out, _ := e.RunTool("read_file", map[string]any{"path": "keep.txt"}); !strings.Contains(out, "kept") || strings.Contains(out, "unchanged") {
		t.Errorf("read after the command = %q, want the new content in full", out)
	}
	var ev struct {
		Kind    string `json:"kind"`
		Command string `json:"command"`
		Files   []struct {
			URI, Path, Kind string
		} `json:"files"`
	}
	e.Await("files_changed runEvent", func() bool {
		for _, n := range e.Notifications("catbuddy/runEvent") {
			if json.Unmarshal(n, &ev) == nil && ev.Kind == "files_changed" {
				return true
			}
		}
		return false
	})
	if len(ev.Files) != 2 || ev.Files[0].Path != "keep.txt" || ev.Files[0].Kind != "changed" || !strings.HasPrefix(ev.Files[0].URI, "file://") || ev.Files[1].Kind != "created" {
		t.Errorf("runEvent = %+v", ev)
	}

	// Always allow: stored in the user's config, not asked again.
	e.SetMessageRequest(fake.Choose(`Always allow "touch"`))
	if out, isErr := e.RunTool("exec", map[string]any{"command": "touch a.txt", "write": true}); isErr {
		t.Fatalf("always = %q", out)
	}
	if _, err := os.Stat(filepath.Join(root, "a.txt")); err != nil {
		t.Errorf("the always-allowed command did not run: %v", err)
	}
	b, err := os.ReadFile(userCfg)
	if err != nil || !strings.Contains(string(b), `"touch"`) || !strings.Contains(string(b), `"execSandbox": false`) {
		t.Fatalf("user config = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".catbuddy", "config.json")); err == nil {
		t.Error("an always-allow rule was written into the project")
	}
	n := len(e.Questions())
	e.SetMessageRequest(fake.Choose("Reject"))
	if out, isErr := e.RunTool("exec", map[string]any{"command": "touch b.txt", "write": true}); isErr || !strings.Contains(out, `allowed by the rule "touch"`) {
		t.Fatalf("allowed = %q", out)
	}
	if len(e.Questions()) != n {
		t.Error("an always-allowed command was asked about again")
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}

// A project config can refuse but never grant.
func TestExecProjectCannotGrant(t *testing.T) {
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	root := writeTree(t, "-- keep.txt --\nkeep\n-- .catbuddy/config.json --\n"+
		`{"tools":{"exec":{"approval":"allowAll","allow":["rm"],"deny":["sed"]}}}`+"\n")
	e := newEditor(t, root)
	out, isErr := e.RunTool("exec", map[string]any{"command": "rm keep.txt", "write": true})
	if !isErr || !strings.Contains(out, "the user rejected") {
		t.Errorf("the project granted: %q", out)
	}
	keepSurvives(t, root, "rm")
	e.SetMessageRequest(fake.Choose("Run"))
	out, isErr = e.RunTool("exec", map[string]any{"command": "sed -i s/keep/lost/ keep.txt", "write": true})
	if !isErr || !strings.Contains(out, `refused by the rule "sed"`) {
		t.Errorf("the project's refusal = %q", out)
	}
	keepSurvives(t, root, "sed")
}
