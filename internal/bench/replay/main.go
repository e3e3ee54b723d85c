// Command replay measures what a recorded task costs in request bytes:
// it serves the task's tool calls, turn by turn, from a scripted model
// (internal/agent/agenttest) over loopback, runs `cb-ls run` against it
// in a fresh copy of the task's project, and prints one JSON line: the
// requests the model server received, their bytes, and the tool calls
// that were answered and that failed.
//
//	replay -cb-ls BIN -task bench/replay/chi-strip.json -project DIR -work DIR
//
// The project is copied, not used in place, and made a git checkout of
// one commit, so that the task's edits land in a tree of their own (bench/replay.sh fetches it with `go mod
// download`). Bytes are the raw request bodies as they arrived: the
// system prompt, the tool definitions and the whole history resent on
// every turn, which is what a provider bills.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// task is a recorded task: the project it runs on, what the user asked,
// and the model's turns.
type task struct {
	Module string            `json:"module"` // module@version, as go mod download takes it
	Prompt string            `json:"prompt"`
	Turns  []agenttest.Turn  `json:"turns"`
	Notes  map[string]string `json:"notes,omitempty"`
}

// report is what one replay measured.
type report struct {
	Task     string `json:"task"`
	Requests int    `json:"requests"`
	Bytes    int    `json:"bytes"`
	// First is the first request's bytes: the system prompt, the tool
	// definitions and the instruction, which every later request
	// repeats. Bytes - Requests*First is what the history added.
	First int `json:"first"`
	// Median is the median request's bytes: what a turn costs halfway
	// through the task.
	Median   int      `json:"median"`
	Calls    int      `json:"calls"`    // tool calls the script sends
	Answered int      `json:"answered"` // tool results in the last request
	Errors   []string `json:"errors"`   // results that are errors: "turn N name: first line"
	ExitCode int      `json:"exit_code"`
}

func main() {
	bin := flag.String("cb-ls", "", "the cb-ls binary")
	taskPath := flag.String("task", "", "the task file (JSON)")
	project := flag.String("project", "", "the project's directory (copied)")
	work := flag.String("work", "", "an empty directory to work in")
	flag.Parse()
	if *bin == "" || *taskPath == "" || *project == "" || *work == "" {
		fmt.Fprintln(os.Stderr, "usage: replay -cb-ls BIN -task FILE -project DIR -work DIR")
		os.Exit(2)
	}
	rep, err := run(*bin, *taskPath, *project, *work)
	if err != nil {
		fmt.Fprintf(os.Stderr, "replay %s: %v\n", *taskPath, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(rep)
}

func run(bin, taskPath, project, work string) (report, error) {
	raw, err := os.ReadFile(taskPath)
	if err != nil {
		return report{}, err
	}
	var tk task
	if err := json.Unmarshal(raw, &tk); err != nil {
		return report{}, fmt.Errorf("parse: %w", err)
	}
	src := filepath.Join(work, "src")
	if err := copyTree(project, src); err != nil {
		return report{}, fmt.Errorf("copy the project: %w", err)
	}
	// The model worked in a checkout: its `git status` and `git diff`
	// must find one, with the project as the last commit.
	if err := gitInit(src); err != nil {
		return report{}, fmt.Errorf("make the project a git checkout: %w", err)
	}
	srv, err := agenttest.Start(agenttest.Script{Turns: tk.Turns}, "127.0.0.1:0")
	if err != nil {
		return report{}, err
	}
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	args := []string{"run", "--yes", "--max-steps", fmt.Sprint(len(tk.Turns) + 2)}
	if usesLanguageTools(tk) {
		// The recording's model had gopls behind its language tools.
		args = append(args, "--language-server", ".go=gopls")
	}
	cmd := exec.CommandContext(ctx, bin, append(args, tk.Prompt)...)
	cmd.Dir = src
	cmd.Env = append(cleanEnv(),
		"HOME="+filepath.Join(work, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"),
		"CB_BASE_URL="+srv.URL(), "CB_PROVIDER=anthropic", "CB_MODEL=replay",
		"ANTHROPIC_API_KEY=sk-replay-not-a-key",
	)
	out, _ := cmd.CombinedOutput()
	os.WriteFile(filepath.Join(work, "run.log"), out, 0o644)

	rep := report{Task: strings.TrimSuffix(filepath.Base(taskPath), ".json"), ExitCode: cmd.ProcessState.ExitCode()}
	for _, t := range tk.Turns {
		rep.Calls += len(t.ToolCalls)
	}
	reqs := srv.Requests()
	rep.Requests = len(reqs)
	sizes := make([]int, 0, len(reqs))
	for _, r := range reqs {
		rep.Bytes += len(r.Raw)
		sizes = append(sizes, len(r.Raw))
	}
	if len(sizes) > 0 {
		slices.Sort(sizes)
		rep.Median = sizes[len(sizes)/2]
	}
	if len(reqs) > 0 {
		rep.First = len(reqs[0].Raw)
		// The last request holds the whole history: what each tool
		// answered, for a reader of the kept work directory.
		os.WriteFile(filepath.Join(work, "last-request.json"), reqs[len(reqs)-1].Raw, 0o644)
		rep.Answered, rep.Errors = toolResults(reqs[len(reqs)-1])
	}
	return rep, nil
}

// toolResults counts the tool results in an Anthropic request's
// history and names those marked is_error: a refusal, a failed edit, a
// command that timed out.
func toolResults(r agenttest.Request) (int, []string) {
	msgs, _ := r.Body["messages"].([]any)
	names := map[string]string{} // tool_use id → "turn N name"
	n, turn := 0, 0
	errs := []string{}
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if msg["role"] == "assistant" {
			turn++
		}
		blocks, _ := msg["content"].([]any)
		for _, bl := range blocks {
			b, _ := bl.(map[string]any)
			switch b["type"] {
			case "tool_use":
				id, _ := b["id"].(string)
				names[id] = fmt.Sprintf("turn %d %v", turn, b["name"])
			case "tool_result":
				n++
				if isErr, _ := b["is_error"].(bool); isErr {
					id, _ := b["tool_use_id"].(string)
					errs = append(errs, names[id]+": "+firstLine(b["content"]))
				}
			}
		}
	}
	return n, errs
}

// firstLine is the first line of a tool result's content: a string or
// text blocks.
func firstLine(c any) string {
	text, _ := c.(string)
	if blocks, ok := c.([]any); ok {
		for _, bl := range blocks {
			if b, _ := bl.(map[string]any); b["type"] == "text" {
				text, _ = b["text"].(string)
				break
			}
		}
	}
	first, _, _ := strings.Cut(text, "\n")
	return first
}

// cleanEnv is the environment without the model settings of whoever
// runs the benchmark.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CB_") || strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_BASE_URL") || k == "HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// copyTree copies the regular files and directories of from into to,
// writable (the module cache's are not).
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		}
		return nil
	})
}

// gitInit makes dir a git repository whose one commit holds its files,
// with a fixed author and date, so that every replay sees the same
// history.
func gitInit(dir string) error {
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=replay", "-c", "user.email=replay@example.invalid", "commit", "-q", "--no-gpg-sign", "-m", "the project as fetched"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cleanEnv(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// usesLanguageTools reports whether the task calls a language tool
// (rename_symbol, lsp, …), which needs a language server.
func usesLanguageTools(tk task) bool {
	for _, t := range tk.Turns {
		for _, c := range t.ToolCalls {
			if slices.Contains(tools.LanguageToolNames, c.Name) {
				return true
			}
		}
	}
	return false
}
