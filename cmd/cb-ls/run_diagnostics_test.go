package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// cb-ls run with gopls configured: an edit that breaks the build gets
// gopls's error in its result, computed on the run's pending text (the
// user's calc.go is untouched), and the edit that fixes it names
// nothing new.
func TestRunDiagnosticsAfterEdit(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "cb-ls run's diagnostics after an edit", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + b", "new_string": "return a + totalMark"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + totalMark", "new_string": "return a + b + 0"})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	writeSumModule(t, root)
	writeUserGopls(t)

	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "change Add"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4\nstderr:\n%s", len(reqs), stderr.String())
	}
	broke := lastToolResult(t, reqs[2])
	if !strings.Contains(broke, "After this edit, gopls reports:") || !strings.Contains(broke, "calc.go:4:") ||
		!strings.Contains(broke, "error: undefined: totalMark") || !strings.Contains(broke, "(new)") {
		t.Errorf("the breaking edit's result:\n%s\nwant gopls's new error undefined: totalMark", broke)
	}
	fixed := lastToolResult(t, reqs[3])
	if strings.Contains(fixed, "reports") || strings.Contains(fixed, "Note:") || !strings.Contains(fixed, "Edited calc.go") {
		t.Errorf("the fixing edit's result:\n%s\nwant the edit and nothing new", fixed)
	}
	// The run's changes are pending: gopls saw the run's view, not the disk.
	if b, _ := os.ReadFile(filepath.Join(root, "calc.go")); strings.Contains(string(b), "totalMark") || strings.Contains(string(b), "+ 0") {
		t.Errorf("calc.go on disk changed:\n%s", b)
	}
}

// Without a language server for a file's language, an edit says once
// per run that nothing checks it; never a silent "nothing new".
func TestRunDiagnosticsUnchecked(t *testing.T) {
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "src/lib.rs", "content": "pub fn add(a: i32) -> i32 { a + missing }\n"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "src/main.rs", "content": "fn main() {}\n"})),
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "NOTES.md", "content": "# notes\n"})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "write rust"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4\nstderr:\n%s", len(reqs), stderr.String())
	}
	const note = "Note: no language server checks this run's .rs files; build to check."
	if first := lastToolResult(t, reqs[1]); !strings.Contains(first, note) {
		t.Errorf("the first .rs write's result:\n%s\nwant %q", first, note)
	}
	for i, what := range []string{"the second .rs write", "the .md write"} {
		if got := lastToolResult(t, reqs[i+2]); strings.Contains(got, "Note:") || strings.Contains(got, "reports") {
			t.Errorf("%s's result:\n%s\nwant no note (said once per run; prose is not checked)", what, got)
		}
	}
}

func lastToolResult(t *testing.T, r agenttest.Request) string {
	t.Helper()
	res := r.ToolResults()
	if len(res) == 0 {
		t.Fatal("the request carries no tool result")
	}
	return res[len(res)-1].Content
}

// A command that writes is checked as an edit is: sed breaking calc.go
// in the run's layer gets gopls's new error in the command's result, and
// a second command that fixes it names nothing new.
func TestRunDiagnosticsAfterWritingCommand(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "cb-ls run's diagnostics after a command", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	needsLayer(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "sed -i 's/return a + b/return a + totalMark/' calc.go", "write": true})),
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "sed -i 's/return a + totalMark/return b + a/' calc.go", "write": true})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	writeSumModule(t, root)
	writeUserGopls(t)
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "change Add"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4\nstderr:\n%s", len(reqs), stderr.String())
	}
	broke := lastToolResult(t, reqs[2])
	if !strings.Contains(broke, "After this command, in calc.go, gopls reports:") || !strings.Contains(broke, "error: undefined: totalMark") {
		t.Errorf("the breaking command's result:\n%s\nwant gopls's new error undefined: totalMark", broke)
	}
	if fixed := lastToolResult(t, reqs[3]); strings.Contains(fixed, "reports") || !strings.Contains(fixed, "changed calc.go") {
		t.Errorf("the fixing command's result:\n%s\nwant the change and nothing new", fixed)
	}
}

// The diagnostics tool lists the run's view as gopls sees it, and says
// which server answered: after a pending edit that breaks calc.go, the
// listing of every file names its error.
func TestRunDiagnosticsToolListsTheRunsView(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "cb-ls run's diagnostics tool", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + b", "new_string": "return a + totalMark"})),
		agenttest.CallTurn(agenttest.Call("diagnostics", map[string]any{})),
		agenttest.CallTurn(agenttest.Call("diagnostics", map[string]any{"path": "main.go"})),
		agenttest.CallTurn(agenttest.Call("diagnostics", map[string]any{"path": "go.mod"})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	writeSumModule(t, root)
	writeUserGopls(t)
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "change Add"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6\nstderr:\n%s", len(reqs), stderr.String())
	}
	if !slices.Contains(reqs[0].ToolNames(), "diagnostics") {
		t.Fatalf("the diagnostics tool is not offered: %v", reqs[0].ToolNames())
	}
	const from = "From gopls (started by cb-ls), which sees this run's files, its pending changes included:"
	all := lastToolResult(t, reqs[3])
	if !strings.HasPrefix(all, from) || !strings.Contains(all, "calc.go:4:") || !strings.Contains(all, "error: undefined: totalMark") {
		t.Errorf("diagnostics of every file:\n%s\nwant %q and calc.go's error", all, from)
	}
	if one := lastToolResult(t, reqs[4]); one != from+"\nmain.go: no diagnostics." {
		t.Errorf("diagnostics of main.go:\n%s", one)
	}
	res := reqs[5].ToolResults()
	if got := res[len(res)-1]; got.IsError || got.Content != "go.mod: diagnostics not available: no language server cb-ls started checks .mod files" {
		t.Errorf("diagnostics of go.mod: %+v", got)
	}
}

// gopls is configured but the workspace has no .go file yet: the
// language tools are not offered, but the run's first Go file is still
// checked, gopls being started for it.
func TestRunDiagnosticsFirstFileOfItsLanguage(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "cb-ls run's diagnostics of a new Go file", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("write_file", map[string]any{"path": "m.go", "content": "package m\n\nfunc F() int { return totalMark }\n"})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	if err := os.Remove(filepath.Join(root, "calc.go")); err != nil {
		t.Fatal(err)
	}
	// A module without Go files yet. (A go.mod the run wrote would be
	// in its view only: gopls reads the disk for what is not Go.)
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeUserGopls(t)
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--root", root, "write Go"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2\nstderr:\n%s", len(reqs), stderr.String())
	}
	if slices.Contains(reqs[0].ToolNames(), "lsp") {
		t.Errorf("the language tools are offered without a Go file: %v", reqs[0].ToolNames())
	}
	if got := lastToolResult(t, reqs[1]); !strings.Contains(got, "After this edit, gopls reports:") || !strings.Contains(got, "undefined: totalMark") {
		t.Errorf("the new Go file's result:\n%s\nwant gopls's error", got)
	}
	if runtime.GOOS == "linux" {
		noProcessesLeft(t, root, os.Getenv("XDG_CONFIG_HOME")) // the server started for the check is shut down too
	}
}

// Reviewed before (review "before", approved by --yes), a command that writes changes
// the disk itself: the files gopls had open are checked after it.
func TestRunDiagnosticsAfterWritingCommandOnDisk(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "cb-ls run's diagnostics after a command", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "calc.go"})),
		agenttest.CallTurn(agenttest.Call("edit_file", map[string]any{"path": "calc.go", "old_string": "return a + b", "new_string": "return b + a"})),
		agenttest.CallTurn(agenttest.Call("exec", map[string]any{"command": "sed -i 's/return b + a/return a + totalMark/' calc.go", "write": true})),
		agenttest.TextTurn("Done."),
	}})
	root := runEnv(t, srv, "openai")
	writeSumModule(t, root)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy", "config.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`{"review": "before", "languageServers": {"gopls": {"command": ["gopls"], "extensions": [".go"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	if code := runAgent(t.Context(), []string{"--yes", "--root", root, "change Add"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4\nstderr:\n%s", len(reqs), stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(root, "calc.go")); !strings.Contains(string(b), "totalMark") {
		t.Fatalf("the command did not write calc.go:\n%s\nits result:\n%s", b, lastToolResult(t, reqs[3]))
	}
	if got := lastToolResult(t, reqs[3]); !strings.Contains(got, "After this command, in calc.go, gopls reports:") || !strings.Contains(got, "error: undefined: totalMark") {
		t.Errorf("the command's result:\n%s\nwant gopls's new error", got)
	}
}
