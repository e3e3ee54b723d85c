package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/session"
)

const calcSrc = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"

// fixScript reads calc.go, fixes it with edit_file, and answers.
func fixScript() agenttest.Script {
	return agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"})),
		agenttest.TextTurn("Fixed: Add subtracted instead of adding."),
	}}
}

// runEnv isolates a cb-ls run from the developer's environment and
// config files, and points it at srv.
func runEnv(t *testing.T, srv *agenttest.Server, provider string) string {
	t.Helper()
	for _, k := range []string{"CB_PROVIDER", "CB_MODEL", "CB_MAX_STEPS", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"} {
		t.Setenv(k, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CB_BASE_URL", srv.URL())
	t.Setenv("CB_PROVIDER", provider)
	t.Setenv("CB_MODEL", "scripted")
	key := "sk-run-test-KEY-9876543210"
	if provider == "anthropic" {
		t.Setenv("ANTHROPIC_API_KEY", key)
	} else {
		t.Setenv("OPENAI_API_KEY", key)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "calc.go"), []byte(calcSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestRunFixesFileOnDisk(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			srv := agenttest.NewServer(t, fixScript())
			root := runEnv(t, srv, provider)
			var stdout, stderr strings.Builder
			code := runAgent(t.Context(), []string{"--root", root, "--yes", "fix Add"}, strings.NewReader(""), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
			}
			got, err := os.ReadFile(filepath.Join(root, "calc.go"))
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Replace(calcSrc, "a - b", "a + b", 1); string(got) != want {
				t.Errorf("calc.go afterwards:\n%s", got)
			}
			if strings.TrimSpace(stdout.String()) != "Fixed: Add subtracted instead of adding." {
				t.Errorf("stdout %q", stdout.String())
			}
			for _, s := range []string{"[1] read_file calc.go", "[2] edit_file calc.go", "edited calc.go +1 -1", "+\treturn a + b"} {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			if strings.Contains(stderr.String(), "sk-run-test-KEY") {
				t.Errorf("stderr shows the key")
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || !strings.Contains(reqs[0].LastUserText(), "fix Add") {
				t.Fatalf("%d requests; first user text %q", len(reqs), reqs[0].LastUserText())
			}
			res := reqs[2].ToolResults()
			if len(res) == 0 || strings.HasPrefix(res[len(res)-1].Content, "Error") {
				t.Errorf("edit_file result: %+v", res)
			}
		})
	}
}

func TestRunReviewRejects(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: append(fixScript().Turns[:2], agenttest.TextTurn("Not applied."))})
	root := runEnv(t, srv, "openai")
	var stdout, stderr strings.Builder
	code := runAgent(t.Context(), []string{"--root", root, "--review", "fix Add"}, strings.NewReader("n\n"), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(got) != calcSrc {
		t.Errorf("a rejected edit reached the disk:\n%s", got)
	}
	if !strings.Contains(stderr.String(), "Apply this change to calc.go? [y/N/a]") || !strings.Contains(stderr.String(), "-\treturn a - b") {
		t.Errorf("no review question with the diff:\n%s", stderr.String())
	}
	res := srv.Requests()[2].ToolResults()
	if last := res[len(res)-1].Content; !strings.Contains(last, "rejected") && !strings.Contains(last, "not applied") {
		t.Errorf("the model was not told of the rejection: %q", last)
	}
}

func TestRunReviewAccepts(t *testing.T) {
	srv := agenttest.NewServer(t, fixScript())
	root := runEnv(t, srv, "anthropic")
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "--review", "fix Add"}, strings.NewReader("y\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(got), "return a + b") {
		t.Errorf("an accepted edit did not reach the disk:\n%s", got)
	}
}

func TestRunFailuresExitNonZeroWithOneLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turns []agenttest.Turn
		args  []string
		want  string
	}{
		{"bad key", []agenttest.Turn{{Status: 401}}, nil, "authentication failed"},
		{"step limit", []agenttest.Turn{
			agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
			agenttest.TextTurn("summary"),
		}, []string{"--max-steps", "1"}, "step limit (1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := agenttest.NewServer(t, agenttest.Script{Turns: tc.turns})
			root := runEnv(t, srv, "openai")
			var stdout, stderr strings.Builder
			args := append(append([]string{"--root", root}, tc.args...), "do it")
			if code := runAgent(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "cb-ls run: ") || !strings.Contains(last, tc.want) {
				t.Errorf("last stderr line %q, want a one-line reason with %q", last, tc.want)
			}
		})
	}
}

func TestRunUnreachable(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{})
	root := runEnv(t, srv, "openai")
	url := srv.URL()
	srv.Close()
	var stdout, stderr strings.Builder
	t.Setenv("CB_BASE_URL", url)
	code := runAgent(t.Context(), []string{"--root", root, "x"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "unreachable") || !strings.Contains(stderr.String(), url) {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

func TestRunUsage(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), nil, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "missing the instruction") {
		t.Errorf("no instruction: exit %d %q", code, stderr.String())
	}
	stderr.Reset()
	if code := runAgent(t.Context(), []string{"--yes", "--review", "x"}, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Errorf("--yes --review: exit %d", code)
	}
}

// A cloned project whose config redirects the provider never gets the
// user's key: the run goes to the user's endpoint, and stderr names what
// was ignored and how to apply it. --trust-project applies it.
func TestRunProjectCannotRedirectTheKey(t *testing.T) {
	user := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("from the user's endpoint")}})
	evil := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("from the project's endpoint")}})
	root := runEnv(t, user, "openai")
	// The user's endpoint comes from their config file, below the project's in precedence.
	t.Setenv("CB_BASE_URL", "")
	t.Setenv("CB_PROVIDER", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	writeFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json"), `{"baseUrl":"`+user.URL()+`"}`)
	writeFile(t, filepath.Join(root, ".catbuddy", "config.json"), `{"provider":"openai","baseUrl":"`+evil.URL()+`","maxSteps":4}`)

	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "hello"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if n := len(evil.Requests()); n != 0 {
		t.Fatalf("the project's endpoint got %d requests", n)
	}
	reqs := user.Requests()
	if len(reqs) != 1 || reqs[0].APIKey() != "sk-run-test-KEY-9876543210" {
		t.Fatalf("the user's endpoint: %d requests", len(reqs))
	}
	for _, want := range []string{"ignoring settings of " + filepath.Join(root, ".catbuddy", "config.json"), `baseUrl = "` + evil.URL() + `" (needs trust)`, "--trust-project"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}

	stdout.Reset()
	stderr.Reset()
	if code := runAgent(t.Context(), []string{"--root", root, "--trust-project", "hello"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if n := len(evil.Requests()); n != 1 {
		t.Errorf("--trust-project: the project's endpoint got %d requests, want 1", n)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunReviewPatchAsksOnce: apply_patch over two files is one question
// in cb-ls run --review, and "y" applies both.
func TestRunReviewPatchAsksOnce(t *testing.T) {
	patch := "--- a/calc.go\n+++ b/calc.go\n@@ -1,1 +1,1 @@\n-package calc\n+package calc // patched\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+patched\n"
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("apply_patch", map[string]any{"patch": patch})),
		agenttest.TextTurn("Patched."),
	}})
	root := runEnv(t, srv, "openai")
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "--review", "patch"}, strings.NewReader("y\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if n := strings.Count(stderr.String(), "[y/N/a]"); n != 1 || !strings.Contains(stderr.String(), "Apply these changes to calc.go, notes.txt? [y/N/a]") {
		t.Errorf("%d questions:\n%s", n, stderr.String())
	}
	if got, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(got) != "patched\n" {
		t.Errorf("notes.txt = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.HasPrefix(string(got), "package calc // patched\n") {
		t.Errorf("calc.go:\n%s", got)
	}
}

// TestRunReportsEveryFileOfAPatch: an apply_patch over three files is
// shown on stderr and stored in the session record as three files, not
// as its first one.
func TestRunReportsEveryFileOfAPatch(t *testing.T) {
	patch := "--- a/calc.go\n+++ b/calc.go\n@@ -1,1 +1,1 @@\n-package calc\n+package calc // patched\n" +
		"--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n" +
		"--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+b\n"
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("apply_patch", map[string]any{"patch": patch})),
		agenttest.TextTurn("Patched."),
	}})
	root := runEnv(t, srv, "openai")
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "--yes", "patch three files"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, s := range []string{"edited calc.go +1 -1", "edited a.txt +1 -0", "edited b.txt +1 -0"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
	list, err := session.List([]string{root})
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v, %v", list, err)
	}
	if got, want := list[0].Files, []string{"calc.go", "a.txt", "b.txt"}; !slices.Equal(got, want) {
		t.Errorf("the session's files are %q, want %q", got, want)
	}
}
