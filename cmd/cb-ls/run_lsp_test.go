package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// sumModule is a small Go module: Add is declared in calc.go and used in
// main.go.
var sumModule = map[string]string{
	"go.mod":  "module example.com/sum\n\ngo 1.21\n",
	"calc.go": "package main\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n",
	"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(Add(1, 2))\n}\n",
}

// writeSumModule writes sumModule into root.
func writeSumModule(t *testing.T, root string) {
	t.Helper()
	for name, src := range sumModule {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeUserGopls names gopls in the languageServers of the user's
// config ($XDG_CONFIG_HOME, which the test has isolated).
func writeUserGopls(t *testing.T) {
	t.Helper()
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`{"languageServers": {"gopls": {"command": ["gopls"], "extensions": [".go"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cb-ls run with gopls named in the user's languageServers: the model's
// lsp and rename_symbol calls are answered by gopls, the rename reaches
// the disk, and gopls is gone once the run ends.
func TestRunLanguageServersFromConfig(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "cb-ls run's language tools test", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("lsp", map[string]any{"operation": "definition", "path": "main.go", "line": 6, "symbol": "Add"})),
		agenttest.CallTurn(agenttest.Call("lsp", map[string]any{"operation": "references", "path": "calc.go", "line": 4, "symbol": "Add"})),
		agenttest.CallTurn(agenttest.Call("rename_symbol", map[string]any{"path": "calc.go", "line": 4, "symbol": "Add", "new_name": "Sum"})),
		agenttest.TextTurn("Renamed Add to Sum."),
	}})
	root := runEnv(t, srv, "openai")
	writeSumModule(t, root)
	writeUserGopls(t)

	var stdout, stderr strings.Builder
	// Without a terminal, --yes is what lets the rename land.
	if code := runAgent(t.Context(), []string{"--yes", "--root", root, "rename Add to Sum"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	if strings.TrimSpace(stdout.String()) != "Renamed Add to Sum." {
		t.Errorf("stdout %q", stdout.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4\nstderr:\n%s", len(reqs), stderr.String())
	}
	for _, name := range []string{"lsp", "rename_symbol"} {
		if !slices.Contains(reqs[0].ToolNames(), name) {
			t.Errorf("the model was not offered %s: %v", name, reqs[0].ToolNames())
		}
	}
	// What the model received for each call: request i+1 carries the
	// result of call i.
	for i, want := range [][]string{
		{"calc.go:4: func Add(a, b int) int { return a + b }"},
		{"main.go:6: fmt.Println(Add(1, 2))"},
		{"calc.go", "main.go"},
	} {
		res := reqs[i+1].ToolResults()
		if len(res) == 0 {
			t.Fatalf("request %d carries no tool result", i+1)
		}
		got := res[len(res)-1].Content
		for _, w := range want {
			if strings.HasPrefix(got, "Error") || !strings.Contains(got, w) {
				t.Errorf("call %d: the model received\n%s\nwant %q in it", i+1, got, w)
			}
		}
	}
	for name, want := range map[string]string{
		"calc.go": "func Sum(a, b int) int { return a + b }",
		"main.go": "fmt.Println(Sum(1, 2))",
	} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || !strings.Contains(string(b), want) || strings.Contains(string(b), "Add(") {
			t.Errorf("%s after the run (%v):\n%s\nwant %q", name, err, b, want)
		}
	}
	if runtime.GOOS == "linux" {
		noProcessesLeft(t, root, os.Getenv("XDG_CONFIG_HOME"))
	}
}

// cb-ls tools run takes the same setting: its language tools are
// answered by gopls, and gopls is gone once stdin ends.
func TestToolsRunLanguageServersFromConfig(t *testing.T) {
	toolsRunLanguageServers(t, true)
}

// --language-server names the same server without a config file.
func TestToolsRunLanguageServerFlag(t *testing.T) {
	toolsRunLanguageServers(t, false)
}

func toolsRunLanguageServers(t *testing.T, fromConfig bool) {
	testenv.NeedsTool(t, "gopls", "cb-ls tools run's language tools test", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	writeSumModule(t, root)
	args := []string{"tools", "run", "--root", root}
	if fromConfig {
		writeUserGopls(t)
	} else {
		args = append(args, "--language-server", ".go=gopls")
	}
	in := `{"name":"lsp","arguments":{"operation":"definition","path":"main.go","line":6,"symbol":"Add"}}
{"name":"rename_symbol","arguments":{"path":"calc.go","line":4,"symbol":"Add","new_name":"Sum"}}
`
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	ls := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(ls) != 2 {
		t.Fatalf("want 2 result lines, got %d:\n%s", len(ls), out.String())
	}
	var def cliResult
	if err := json.Unmarshal([]byte(ls[0]), &def); err != nil || def.IsError || !strings.Contains(def.Output, "calc.go:4: func Add(a, b int) int") {
		t.Errorf("definition: %q %v", ls[0], err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "main.go")); !strings.Contains(string(b), "fmt.Println(Sum(1, 2))") {
		t.Errorf("main.go after the rename:\n%s", b)
	}
	if runtime.GOOS == "linux" {
		noProcessesLeft(t, root, os.Getenv("XDG_CONFIG_HOME"))
	}
}

// noProcessesLeft fails unless gopls, which runs in the work root, is
// gone the moment the command returned (Close waits for it), and its
// telemetry helper, which runs in the user config directory and which
// gopls does not wait for, is gone within a few seconds.
func noProcessesLeft(t *testing.T, root, configHome string) {
	t.Helper()
	if pids := processesIn(t, root); len(pids) > 0 {
		t.Errorf("processes still running in the work root after the command: %v", pids)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := processesIn(t, configHome)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes still running in the user config directory 10s after the command: %v", pids)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processesIn lists the processes whose working directory is dir or
// beneath it: the language servers cb-ls started there.
func processesIn(t *testing.T, dir string) []string {
	t.Helper()
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && (cwd == want || strings.HasPrefix(cwd, want+string(filepath.Separator))) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

// A malformed --language-server stops before anything starts, saying
// what the flag wants.
func TestLanguageServerFlagRefusesNonsense(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"tools", "run", "--language-server", "gopls"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), `"gopls": want EXTENSIONS=COMMAND, e.g. .go=gopls`) {
		t.Errorf("stderr %q", errb.String())
	}
}
