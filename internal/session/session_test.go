package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

const secret = "sk-session-secret-123456"

func exchange(input, file string) []agent.Message {
	return []agent.Message{
		{Role: agent.RoleUser, Text: input},
		{Role: agent.RoleAssistant, Text: "Reading.", ToolCalls: []agent.ToolCall{
			{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"` + file + `"}`)},
			{ID: "c2", Name: "grep", Args: json.RawMessage(`{"pattern": broken`)}, // malformed, kept verbatim
		}},
		{Role: agent.RoleUser, ToolResults: []agent.ToolResult{
			{CallID: "c1", Name: "read_file", Output: "1\tpackage calc <b>&\n"},
			{CallID: "c2", Name: "grep", Output: "Error: bad arguments", IsError: true},
		}},
		{Role: agent.RoleAssistant, Text: "Done; the key " + secret + " was in the output."},
	}
}

func TestRoundTripAcrossTurns(t *testing.T) {
	root := t.TempDir()
	started := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	h := Header{RunID: "rabc", Command: "fix", Title: "Agent: Fix This", Path: "/p/calc.go", File: "calc.go", Input: "fix it\nplease", Started: started, Model: "m"}
	log := NewLog(root, h)
	dir, err := DirOf(root)
	if err != nil {
		t.Fatal(err)
	}
	if log.Path != filepath.Join(dir, "20261202-100000-rabc-fix.jsonl") || !strings.HasPrefix(dir, os.Getenv("XDG_STATE_HOME")) {
		t.Fatalf("path = %s, want it in the state directory %s", log.Path, dir)
	}
	first := exchange("fix it\nplease", "calc.go")
	t1 := Turn{Input: "fix it\nplease", Outcome: "done", Steps: 2, Usage: agent.Usage{InputTokens: 10, OutputTokens: 3}, Files: []string{"calc.go"}, Ended: started.Add(time.Minute)}
	if err := log.AppendTurn(first, t1, secret); err != nil {
		t.Fatal(err)
	}
	// A reply continues from the loaded session, as after a restart.
	s, err := Load(log.Path)
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([]agent.Message{}, first...), exchange("now the test", "calc_test.go")...)
	t2 := Turn{Input: "now the test", Outcome: "cancelled", Error: "cancelled by the user", Steps: 1, Usage: agent.Usage{InputTokens: 20, OutputTokens: 4}, Files: []string{"calc_test.go", "calc.go"}, Ended: started.Add(2 * time.Minute)}
	if err := s.Log().AppendTurn(all, t2, secret); err != nil {
		t.Fatal(err)
	}

	got, err := Load(log.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]agent.Message, len(all))
	for i, m := range all {
		m.Text = strings.ReplaceAll(m.Text, secret, "[redacted]")
		want[i] = m
	}
	if d := cmp.Diff(want, got.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if got.Header != h {
		t.Errorf("header = %+v, want %+v", got.Header, h)
	}
	wantSum := Summary{Header: h, Outcome: "cancelled", Updated: t2.Ended, Turns: 2,
		Usage: agent.Usage{InputTokens: 30, OutputTokens: 7}, Files: []string{"calc.go", "calc_test.go"}, Log: log.Path}
	if d := cmp.Diff(wantSum, got.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if sum, err := LoadSummary(log.Path); err != nil || !cmp.Equal(sum, wantSum) {
		t.Errorf("LoadSummary = %+v, %v; want %+v", sum, err, wantSum)
	}
	if got.TitleText() != "fix it" {
		t.Errorf("title = %q, want the first line of the input", got.TitleText())
	}
	raw, _ := os.ReadFile(log.Path)
	if strings.Contains(string(raw), secret) {
		t.Errorf("the key reached the session file")
	}
	if fi, _ := os.Stat(log.Path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 (the user's data)", fi.Mode().Perm())
	}
}

func TestLoadTornAndDamaged(t *testing.T) {
	root := t.TempDir()
	log := NewLog(root, Header{RunID: "r1", Command: "ask", Title: "Agent: Ask", Started: time.Now()})
	msgs := exchange("q", "a.go")
	if err := log.AppendTurn(msgs, Turn{Outcome: "done", Ended: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// A write cut short: a message and half a line, no turn record.
	f, _ := os.OpenFile(log.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"message","message":{"role":"user","text":"lost"}}` + "\n" + `{"kind":"turn","tu`)
	f.Close()
	s, err := Load(log.Path)
	if err != nil {
		t.Fatalf("a torn last line must not lose the stored turns: %v", err)
	}
	if len(s.Messages) != len(msgs) || s.Turns != 1 {
		t.Errorf("got %d messages, %d turns; want %d, 1", len(s.Messages), s.Turns, len(msgs))
	}

	// Garbage in the middle is an error naming the file and line.
	data, _ := os.ReadFile(log.Path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = "not json\n"
	bad := filepath.Join(filepath.Dir(log.Path), "20260101-000000-r2-ask.jsonl")
	os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o600)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad+" line 2") {
		t.Errorf("err = %v, want the file and line 2 named", err)
	}
	// List still shows the good run and reports the damaged one.
	list, err := List([]string{root})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("List err = %v, want the damaged file named", err)
	}
	if len(list) != 1 || list[0].RunID != "r1" {
		t.Errorf("List = %+v, want the one good run", list)
	}
}

func TestFindAndList(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, spec := range []struct {
		root, id string
		ended    time.Duration
	}{{a, "rold", time.Hour}, {b, "rnew", 3 * time.Hour}, {a, "rmid", 2 * time.Hour}} {
		l := NewLog(spec.root, Header{RunID: spec.id, Command: "ask", Started: base.Add(time.Duration(i) * time.Minute)})
		if err := l.AppendTurn(exchange("q", "x.go"), Turn{Outcome: "done", Ended: base.Add(spec.ended)}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := List([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.RunID)
	}
	if d := cmp.Diff([]string{"rnew", "rmid", "rold"}, ids); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	dirB, _ := DirOf(b)
	if p, err := Find([]string{a, b}, "rnew"); err != nil || filepath.Dir(p) != dirB {
		t.Errorf("Find rnew = %s, %v; want it among b's sessions, %s", p, err, dirB)
	}
	if _, err := Find([]string{a, b}, "rnone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find of an unknown run: %v, want ErrNotFound", err)
	}
	for _, bad := range []string{"", "../x", "r*", "a/b"} {
		if _, err := Find([]string{a}, bad); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Find(%q) = %v, want an invalid id error", bad, err)
		}
	}
}

func TestSymlinkedSessionRefused(t *testing.T) {
	root := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "target")
	os.WriteFile(elsewhere, nil, 0o600)
	log := NewLog(root, Header{RunID: "r1", Command: "ask", Started: time.Now()})
	os.MkdirAll(filepath.Dir(log.Path), 0o700)
	if err := os.Symlink(elsewhere, log.Path); err != nil {
		testenv.Needs(t, false, "symlinks", err.Error(), "a file system with symlinks")
	}
	if err := log.AppendTurn(exchange("q", "x"), Turn{Outcome: "done"}); err == nil {
		t.Fatal("wrote through a symlink")
	}
	if data, _ := os.ReadFile(elsewhere); len(data) != 0 {
		t.Errorf("the symlink's target was written: %q", data)
	}
}

// A conversation the agent compacted is not an extension of the stored
// one: it is stored whole, and loading gives it as it is now.
func TestCompactedConversationStoredWhole(t *testing.T) {
	root := t.TempDir()
	log := NewLog(root, Header{RunID: "rc", Command: "ask", Started: time.Now()})
	long := append(exchange("one", "a.go"), exchange("two", "b.go")...)
	if err := log.AppendTurn(long, Turn{Outcome: "done"}); err != nil {
		t.Fatal(err)
	}
	for name, next := range map[string][]agent.Message{
		"shorter": append([]agent.Message{{Role: agent.RoleUser, Text: "Summary of the earlier work."}}, exchange("three", "c.go")[1:]...),
		"same length, older output trimmed": func() []agent.Message {
			m := append([]agent.Message{}, long...)
			m[2] = agent.Message{Role: agent.RoleUser, ToolResults: []agent.ToolResult{{CallID: "c1", Name: "read_file", Output: "[trimmed]"}}}
			return append(m, agent.Message{Role: agent.RoleUser, Text: "more"}, agent.Message{Role: agent.RoleAssistant, Text: "ok"})
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Load(log.Path)
			if err != nil {
				t.Fatal(err)
			}
			l := s.Log()
			if err := l.AppendTurn(next, Turn{Outcome: "done"}); err != nil {
				t.Fatal(err)
			}
			got, err := Load(log.Path)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(next, got.Messages); d != "" {
				t.Errorf("after the rewrite (-want +got):\n%s", d)
			}
			long = next
		})
	}
	// An extension after a load appends only the new messages.
	s, _ := Load(log.Path)
	before, _ := os.ReadFile(log.Path)
	more := append(append([]agent.Message{}, s.Messages...), agent.Message{Role: agent.RoleUser, Text: "again"}, agent.Message{Role: agent.RoleAssistant, Text: "fine"})
	if err := s.Log().AppendTurn(more, Turn{Outcome: "done"}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(log.Path)
	if added := strings.Count(string(after[len(before):]), "\n"); added != 3 {
		t.Errorf("an extension wrote %d lines, want 3 (two messages and the turn):\n%s", added, after[len(before):])
	}
}

func TestCheckID(t *testing.T) {
	for id, ok := range map[string]bool{
		"run-1_A": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "a/b": false, "..": false, "a b": false, "é": false, "a*": false,
	} {
		if err := CheckID(id); (err == nil) != ok {
			t.Errorf("CheckID(%q) = %v, want ok %v", id, err, ok)
		}
	}
}
