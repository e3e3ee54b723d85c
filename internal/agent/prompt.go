package agent

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
)

// SystemPrompt states the workspace, the environment and the rules that
// make the tools work. readOnly is true for answer-only commands. The
// tools are not listed: each request carries their definitions, and
// what holds for one tool is said there.
func SystemPrompt(workRoot string, readOnly bool, env Environment) string {
	var b strings.Builder
	if env.Headless {
		b.WriteString("You are a coding agent run from the command line on the user's project; the user reads your final answer and sees every change you make. ")
		b.WriteString("You act on the project only through your tools.\n\n")
	} else {
		b.WriteString("You are a coding agent inside the user's editor. ")
		b.WriteString("You act on the project only through your tools; the user sees every change you make and may accept or reject it.\n\n")
	}
	if workRoot != "" {
		fmt.Fprintf(&b, "Workspace: %s (relative paths are resolved against it)\n", workRoot)
	}
	if env.OS != "" {
		b.WriteString(env.line())
		b.WriteString("\n")
	}
	b.WriteString("\n")
	// Each rule is said once: what belongs to one tool (edit_file's
	// exact match, write_file for new files, exec's access, which
	// depends on the run) is in that tool's description.
	b.WriteString("Rules:\n")
	if readOnly {
		b.WriteString("- Answer only. Do not change any file; read what you need to answer precisely.\n")
	} else {
		b.WriteString("- Read a file (read_file) before you edit it, and edit the version you read.\n")
		b.WriteString("- Keep changes small and focused on the request; do not reformat unrelated code.\n")
		b.WriteString("- If the user rejects an edit, do not retry it: explain what you wanted to change and stop.\n")
	}
	b.WriteString("- When a tool fails, read the error and change your approach; do not repeat the same call.\n")
	b.WriteString("- Line numbers shown next to code are not part of the file.\n")
	b.WriteString("- When done, answer briefly in plain text: what you found and what you changed.\n")
	return b.String()
}

// Excerpt bounds: a file this small is sent whole; a larger one is sent
// as the selection with this many lines around it.
const (
	wholeFileLines = 300
	wholeFileBytes = 24 << 10
	contextLines   = 40
)

// TaskPrompt is the first user message of a run: the command's prompt
// followed by the place it applies to (file, excerpt with line numbers,
// selection, diagnostics from every source).
func TaskPrompt(cmd config.Command, task Task, workRoot string) string {
	if task.Path == "" {
		return Expand(withoutFile(cmd), task, workRoot)
	}
	var b strings.Builder
	b.WriteString(Expand(cmd, task, workRoot))
	name := displayPath(task.Path, workRoot)
	b.WriteString("\n\n## Context\n\n")
	fmt.Fprintf(&b, "File: %s", name)
	if task.Language != "" {
		fmt.Fprintf(&b, " (%s)", task.Language)
	}
	if task.StartLine > 0 {
		fmt.Fprintf(&b, ", lines %d-%d selected", task.StartLine, max(task.StartLine, task.EndLine))
	}
	b.WriteString("\n")
	if len(task.Content) > 0 {
		first, last, whole := excerptRange(task)
		// Only an editor's buffer holds unsaved text; a client that
		// serves none gave the file as saved.
		as := "as the user sees it"
		if task.FromDisk {
			as = "as saved on disk"
		}
		if whole {
			if task.FromDisk {
				fmt.Fprintf(&b, "\nThe whole file, %s:\n", as)
			} else {
				fmt.Fprintf(&b, "\nThe whole file, %s (unsaved changes included):\n", as)
			}
		} else {
			fmt.Fprintf(&b, "\nLines %d-%d of the file, %s (read_file for the rest):\n", first, last, as)
		}
		writeNumbered(&b, task.Content, first, last, task.Language)
	}
	if sel := strings.TrimSpace(task.Selection); sel != "" {
		b.WriteString("\nThe selection:\n")
		fence := fenceFor(task.Selection)
		fmt.Fprintf(&b, "%s%s\n%s\n%s\n", fence, task.Language, strings.TrimRight(task.Selection, "\n"), fence)
	}
	if d := formatDiagnostics(task, workRoot); d != "" {
		b.WriteString("\nDiagnostics:\n")
		b.WriteString(d)
		b.WriteString("\n")
	}
	return b.String()
}

// excerptRange returns the 1-based line range of task.Content to send.
func excerptRange(task Task) (first, last int, whole bool) {
	n := bytes.Count(task.Content, []byte("\n"))
	if len(task.Content) > 0 && task.Content[len(task.Content)-1] != '\n' {
		n++
	}
	if n <= wholeFileLines && len(task.Content) <= wholeFileBytes || task.StartLine <= 0 {
		if n > wholeFileLines || len(task.Content) > wholeFileBytes {
			return 1, min(n, wholeFileLines), false // no selection: the top of a big file
		}
		return 1, n, true
	}
	end := max(task.StartLine, task.EndLine)
	return max(1, task.StartLine-contextLines), min(n, end+contextLines), false
}

// writeNumbered writes lines first..last of content in a fenced block,
// each prefixed by its number as `cat -n` does.
func writeNumbered(b *strings.Builder, content []byte, first, last int, lang string) {
	fence := fenceFor(string(content))
	fmt.Fprintf(b, "%s%s\n", fence, lang)
	line := 1
	for len(content) > 0 && line <= last {
		i := bytes.IndexByte(content, '\n')
		var l []byte
		if i < 0 {
			l, content = content, nil
		} else {
			l, content = content[:i], content[i+1:]
		}
		if line >= first {
			fmt.Fprintf(b, "%6d\t%s\n", line, bytes.TrimSuffix(l, []byte("\r")))
		}
		line++
	}
	fmt.Fprintf(b, "%s\n", fence)
}

// fenceFor returns a backtick fence longer than any run in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
