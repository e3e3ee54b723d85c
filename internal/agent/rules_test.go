package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// project writes files (slash paths → content) under a new root and
// returns the root and a runner whose tools and Files work on it.
func project(t *testing.T, files map[string]string) (string, *Runner) {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tools.ToolContext{Guard: g, Workspace: tools.DiskWorkspace{}}
	reg := tools.NewRegistry()
	if err := tools.RegisterBuiltins(reg, tc); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user rules unless a test writes them
	return g.WorkRoot(), &Runner{Registry: reg, WorkRoot: g.WorkRoot, Files: tc}
}

func TestRulesRootAndNestedReachTheSystemPrompt(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		root, r := project(t, map[string]string{
			"AGENTS.md":            "Root rule: run go test before you finish.",
			"pkg/AGENTS.md":        "Pkg rule: no panics in pkg.",
			"pkg/deep/x.go":        "package deep\n",
			"other/AGENTS.md":      "Other rule: other is generated; never edit it.",
			"other/y.go":           "package other\n",
			".catbuddy/AGENTS.md":  "SECRET state rule",
			"unrelated/AGENTS.md":  "Unrelated rule",
			"unrelated/z.go":       "package unrelated\n",
			"pkg/deep/README.txt":  "not a rules file",
			"pkg/CLAUDE.md":        "shadowed by pkg/AGENTS.md",
			"other/sub/CLAUDE.md":  "",
			"other/sub/nothing.go": "package sub\n",
		})
		srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
			agenttest.CallTurn(agenttest.Call("read_file", map[string]any{"path": "other/y.go"})),
			agenttest.TextTurn("done"),
		}})
		r.Config = m.config(srv)
		task := Task{Command: "fix", Path: filepath.Join(root, "pkg", "deep", "x.go"), Content: []byte("package deep\n")}
		if _, err := r.Run(t.Context(), task, nil); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		first, second := reqs[0].System(), reqs[1].System()
		for _, want := range []string{"## Rules from AGENTS.md", "Root rule: run go test", "## Rules from pkg/AGENTS.md", "Pkg rule: no panics"} {
			if !strings.Contains(first, want) {
				t.Errorf("first system prompt lacks %q:\n%s", want, first)
			}
		}
		for _, unwanted := range []string{"SECRET", "Unrelated rule", "shadowed", "Other rule"} {
			if strings.Contains(first, unwanted) {
				t.Errorf("first system prompt has %q:\n%s", unwanted, first)
			}
		}
		// The run read other/y.go: other/AGENTS.md joins at the next turn,
		// after what was there before (the earlier text stays as it was).
		if !strings.HasPrefix(second, strings.TrimRight(first, "\n")) || !strings.Contains(second, "## Rules from other/AGENTS.md\n\nOther rule") {
			t.Errorf("second system prompt does not add other/AGENTS.md after the first:\n%s", second)
		}
	})
}

func TestRulesFallbacksUserFileAndChangesBetweenRuns(t *testing.T) {
	root, r := project(t, map[string]string{
		".github/copilot-instructions.md": "Copilot rule at the root.",
		"lib/CLAUDE.md":                   "Claude rule in lib.",
		"lib/a.go":                        "package lib\n",
	})
	userDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "catbuddy")
	if err := os.MkdirAll(userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userDir, "AGENTS.md"), []byte("User rule: answer in English."), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("one"), agenttest.TextTurn("two")}})
	r.Config = modes[0].config(srv)
	task := Task{Command: "fix", Path: filepath.Join(root, "lib", "a.go"), Content: []byte("package lib\n")}
	var start Event
	_, err := r.Run(t.Context(), task, func(ev Event) {
		if ev.Kind == EventStart {
			start = ev
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	sys := srv.Requests()[0].System()
	order := []string{"## Rules from .github/copilot-instructions.md", "## Rules from lib/CLAUDE.md", "## Rules from " + filepath.Join(userDir, "AGENTS.md"), "User rule"}
	at := 0
	for _, want := range order {
		i := strings.Index(sys[at:], want)
		if i < 0 {
			t.Fatalf("system prompt lacks %q after offset %d:\n%s", want, at, sys)
		}
		at += i
	}
	if want := []string{".github/copilot-instructions.md", "lib/CLAUDE.md"}; len(start.Rules) < 2 || start.Rules[0] != want[0] || start.Rules[1] != want[1] {
		t.Errorf("the start event names the rules files %q, want %q first", start.Rules, want)
	}

	// An AGENTS.md written between runs wins over CLAUDE.md and Copilot's file.
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("New root rule."), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(t.Context(), task, nil); err != nil {
		t.Fatal(err)
	}
	sys = srv.Requests()[1].System()
	if !strings.Contains(sys, "## Rules from AGENTS.md\n\nNew root rule.") || strings.Contains(sys, "Copilot rule") {
		t.Errorf("the second run does not see the new AGENTS.md instead of Copilot's file:\n%s", sys)
	}
}

func TestRulesCapSaysWhatWasCut(t *testing.T) {
	big := strings.Repeat("Rule line.\n", 3500) // 38500 bytes
	root, r := project(t, map[string]string{
		"AGENTS.md":     big,
		"sub/AGENTS.md": "Sub rule.",
		"sub/f.go":      "package sub\n",
	})
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{agenttest.TextTurn("ok")}})
	r.Config = modes[0].config(srv)
	if _, err := r.Run(t.Context(), Task{Command: "fix", Path: filepath.Join(root, "sub", "f.go")}, nil); err != nil {
		t.Fatal(err)
	}
	sys := srv.Requests()[0].System()
	if n := strings.Count(sys, "Rule line."); n*len("Rule line.\n")-1 > RulesCap || n < 2900 {
		t.Errorf("%d rule lines kept, want close to the %d-byte cap", n, RulesCap)
	}
	for _, want := range []string{
		"[cut: the last 5731 of 38499 bytes of AGENTS.md are left out, over the 32 KB rules cap]",
		"[left out, over the 32 KB rules cap: sub/AGENTS.md (9 bytes)]",
	} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(sys, "Sub rule.") {
		t.Error("sub/AGENTS.md's text is in the prompt although the cap was reached")
	}
}
