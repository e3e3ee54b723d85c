package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

func TestToolsList(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"tools", "list", "--root", t.TempDir()}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var specs []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(out.Bytes(), &specs); err != nil {
		t.Fatalf("not a JSON array of specs: %v\n%s", err, out.String())
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		var schema map[string]any
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: input_schema is not an object schema: %s", s.Name, s.InputSchema)
		}
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("tools not sorted: %v", names)
	}
	for _, want := range []string{"read_file", "edit_file", "write_file", "multi_edit", "list_dir", "glob", "grep"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools list lacks %s: %v", want, names)
		}
	}
}

// TestToolsListSameAsBuilt: the tools are registered lazily, yet "tools
// list" prints exactly what building every built-in tool gives.
func TestToolsListSameAsBuilt(t *testing.T) {
	root := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"tools", "list", "--root", root}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	g, err := guard.New([]string{root}, guard.ModeAuto)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tools.ToolContext{Guard: g, Workspace: tools.DiskWorkspace{}}
	var built []tools.Tool
	for _, b := range tools.Builtins {
		built = append(built, b.New(tc))
	}
	slices.SortFunc(built, func(a, b tools.Tool) int { return strings.Compare(a.Name, b.Name) })
	want, err := json.MarshalIndent(tools.Specs(built), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != string(want) {
		t.Errorf("tools list differs from the built tools' specs:\n got %s\nwant %s", got, want)
	}
}

// cliSession runs "cb-ls tools run" on pipes, one call at a time.
type cliSession struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	stderr *syncBuffer
	done   chan int
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startTools(t *testing.T, args ...string) *cliSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &cliSession{t: t, in: inW, out: bufio.NewReader(outR), stderr: &syncBuffer{}, done: make(chan int, 1)}
	go func() {
		code := run(append([]string{"tools", "run"}, args...), inR, outW, s.stderr)
		outW.Close()
		s.done <- code
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

type cliResult struct {
	Name    string `json:"name"`
	Output  string `json:"output"`
	IsError bool   `json:"is_error"`
}

// send writes one raw line and waits for its result line: a result that
// is not flushed after its call never arrives, and the test fails.
func (s *cliSession) send(line string) cliResult {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write %q: %v", line, err)
	}
	got := make(chan string, 1)
	go func() {
		l, _ := s.out.ReadString('\n')
		got <- l
	}()
	select {
	case l := <-got:
		var r cliResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			s.t.Fatalf("result line %q: %v (stderr: %s)", l, err, s.stderr.String())
		}
		return r
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no result for %q (not flushed?); stderr: %s", line, s.stderr.String())
	}
	return cliResult{}
}

func (s *cliSession) call(name string, args any) cliResult {
	s.t.Helper()
	b, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		s.t.Fatal(err)
	}
	return s.send(string(b))
}

func (s *cliSession) close() int {
	s.t.Helper()
	s.in.Close()
	select {
	case code := <-s.done:
		return code
	case <-time.After(20 * time.Second):
		s.t.Fatal("tools run did not exit when stdin closed")
	}
	return -1
}

func TestToolsRun(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := startTools(t, "--root", dir, "--mode", "project")

	r := s.call("write_file", map[string]any{"path": "src/hello.go", "content": "package main\n\nfunc hello() {}\n"})
	if r.IsError || r.Name != "write_file" {
		t.Fatalf("write_file: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "src", "hello.go")); err != nil || !strings.Contains(string(b), "func hello") {
		t.Fatalf("file not written: %v %q", err, b)
	}
	r = s.call("read_file", map[string]any{"path": "src/hello.go"})
	if r.IsError || !strings.Contains(r.Output, "func hello") {
		t.Fatalf("read_file: %+v", r)
	}
	// The same run's FileStates span calls: a second read is deduplicated.
	r = s.call("read_file", map[string]any{"path": "src/hello.go"})
	if !strings.Contains(r.Output, "unchanged") {
		t.Errorf("second read_file should be answered as unchanged: %+v", r)
	}
	r = s.send("this is not json")
	if !r.IsError || !strings.Contains(r.Output, "not a JSON tool call") {
		t.Errorf("non-JSON line: %+v", r)
	}
	r = s.send(`{"arguments":{}}`)
	if !r.IsError || !strings.Contains(r.Output, `no "name"`) {
		t.Errorf("call without name: %+v", r)
	}
	r = s.call("nope", map[string]any{})
	if !r.IsError || r.Output != `Error: unknown tool "nope"` {
		t.Errorf("unknown tool: %+v", r)
	}
	r = s.call("grep", map[string]any{"pattern": `func \w+`})
	if r.IsError || r.Output != "src/hello.go\n3:func hello() {}" {
		t.Errorf("grep: %+v", r)
	}
	r = s.call("glob", map[string]any{"pattern": "**/*.go"})
	if r.Output != "src/hello.go" {
		t.Errorf("glob: %+v", r)
	}
	r = s.call("read_file", map[string]any{"path": "../etc/passwd"})
	if !r.IsError || !strings.Contains(r.Output, `Access denied: "../etc/passwd" is outside the workspace`) {
		t.Errorf("outside path: %+v", r)
	}
	r = s.call("edit_file", map[string]any{"path": "src/hello.go", "old_string": "hello()", "new_string": "hi()"})
	if r.IsError {
		t.Errorf("edit_file: %+v", r)
	}
	if code := s.close(); code != 0 {
		t.Errorf("exit code %d; stderr: %s", code, s.stderr.String())
	}
	stderr := s.stderr.String()
	for _, want := range []string{"edit: write_file src/hello.go: done +3 -0", "edit: edit_file src/hello.go: done +1 -1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestToolsRunInternalMode(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "project.txt"), []byte("x\n"), 0o644)
	s := startTools(t, "--root", dir, "--mode", "internal")
	if r := s.call("write_file", map[string]any{"path": "note.md", "content": "hi\n"}); r.IsError {
		t.Fatalf("write in internal mode: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".catbuddy", "workspace", "note.md")); err != nil {
		t.Errorf("internal write did not land in .catbuddy/workspace: %v", err)
	}
	if r := s.call("read_file", map[string]any{"path": filepath.Join(dir, "project.txt")}); !r.IsError {
		t.Errorf("internal mode read the project: %+v", r)
	}
	if code := s.close(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestToolsRunLongLineAndEOFWithoutNewline(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 300<<10) // beyond bufio.Scanner's default token size
	call, _ := json.Marshal(map[string]any{"name": "write_file", "arguments": map[string]any{"path": "big.txt", "content": big}})
	in := string(call) + "\n" + `{"name":"list_dir","arguments":{}}` // no final newline
	var out, errb bytes.Buffer
	if code := run([]string{"tools", "run", "--root", dir}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	ls := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(ls) != 2 {
		t.Fatalf("want 2 result lines, got %d:\n%s", len(ls), out.String())
	}
	var r cliResult
	if err := json.Unmarshal([]byte(ls[1]), &r); err != nil || r.Name != "list_dir" || r.Output != "big.txt" {
		t.Errorf("last line: %q %v", ls[1], err)
	}
}

func TestToolsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"tools"},
		{"tools", "frob"},
		{"tools", "run", "--mode", "yolo"},
		{"tools", "run", "--root", filepath.Join(t.TempDir(), "missing")},
		{"tools", "run", "stray"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if errb.Len() == 0 {
			t.Errorf("%v: no message on stderr", args)
		}
	}
}
