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
