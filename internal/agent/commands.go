package agent

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
)

var templateVar = regexp.MustCompile(`\$\{(\w+)\}`)

// Expand fills cmd's prompt template from task: ${file} (the path,
// relative to workRoot when inside it), ${selection}, ${diagnostics},
// ${language}, ${input}. Unknown variables stay as written. Lines left
// empty by an empty variable are dropped, so optional parts of a
// template need no conditionals.
func Expand(cmd config.Command, task Task, workRoot string) string {
	vars := map[string]string{
		"file":        displayPath(task.Path, workRoot),
		"selection":   task.Selection,
		"diagnostics": formatDiagnostics(task, workRoot),
		"language":    task.Language,
		"input":       strings.TrimSpace(task.Input),
	}
	var out []string
	for _, line := range strings.Split(cmd.Prompt, "\n") {
		hadVar, hadValue := false, false
		expanded := templateVar.ReplaceAllStringFunc(line, func(m string) string {
			v, ok := vars[m[2:len(m)-1]]
			if !ok {
				return m
			}
			hadVar = true
			hadValue = hadValue || v != ""
			return v
		})
		if hadVar && !hadValue && strings.TrimSpace(expanded) == "" {
			continue // the line held only empty variables
		}
		out = append(out, expanded)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// displayPath shows p relative to root when inside it.
func displayPath(p, root string) string {
	if p == "" {
		return ""
	}
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

func formatDiagnostics(task Task, root string) string {
	var b strings.Builder
	name := displayPath(task.Path, root)
	for _, d := range task.Diagnostics {
		fmt.Fprintf(&b, "- %s:%d", name, d.Line)
		if d.Column > 0 {
			fmt.Fprintf(&b, ":%d", d.Column)
		}
		if d.Severity != "" {
			fmt.Fprintf(&b, " %s", d.Severity)
		}
		switch {
		case d.Source != "" && d.Code != "":
			fmt.Fprintf(&b, " [%s %s]", d.Source, d.Code)
		case d.Source != "":
			fmt.Fprintf(&b, " [%s]", d.Source)
		case d.Code != "":
			fmt.Fprintf(&b, " [%s]", d.Code)
		}
		fmt.Fprintf(&b, ": %s\n", oneLineKeep(d.Message))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// oneLineKeep folds a multi-line message onto one line.
func oneLineKeep(s string) string { return strings.Join(strings.Fields(s), " ") }

// withoutFile is cmd for a task with no file: a command written for one
// (its prompt names ${file} or ${selection}) would tell the model of an
// empty file name and a selection that does not exist ("Fix the selected
// code in ."), so the model is told instead to find the code the request
// is about. An ACP client may start /fix with nothing attached.
func withoutFile(cmd config.Command) config.Command {
	if !strings.Contains(cmd.Prompt, "${file}") && !strings.Contains(cmd.Prompt, "${selection}") {
		return cmd
	}
	p := fmt.Sprintf("The user asked for /%s (%s) without attaching a file or selecting code: "+
		"find the code the request is about in the workspace with the tools first.", cmd.ID, strings.TrimPrefix(cmd.Title, "Agent: "))
	if cmd.ReadOnly {
		p += " Answer only; do not change any file."
	}
	cmd.Prompt = p + "\n${input}"
	return cmd
}
