package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// runArgs is arguments[0] of catbuddy.run (and catbuddy.fix, whose
// command is implied).
type runArgs struct {
	Command     string                `json:"command"`
	URI         uri.URI               `json:"uri"`
	Range       *protocol.Range       `json:"range"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	Input       string                `json:"input"`
}

// decodeRunArgs decodes the first command argument. A missing uri is
// allowed only for a free question ("ask" with input).
func decodeRunArgs(args [][]byte, impliedCommand string) (runArgs, error) {
	var a runArgs
	if len(args) == 0 {
		return a, invalidParams("expected one argument {command, uri, range, diagnostics?, input?}")
	}
	if err := protocol.Unmarshal(args[0], &a); err != nil {
		return a, invalidParams("invalid argument: %v", err)
	}
	if impliedCommand != "" {
		if a.Command != "" && a.Command != impliedCommand {
			return a, invalidParams("command %q contradicts %q", a.Command, impliedCommand)
		}
		a.Command = impliedCommand
	}
	if a.Command == "" {
		return a, invalidParams("missing command (fix, explain, ask or a custom command id)")
	}
	if a.URI == "" && a.Input == "" {
		return a, invalidParams("missing uri: a run needs a document, or input for a free question")
	}
	return a, nil
}

// target is the document a run works on, as the user sees it now.
type target struct {
	uri      uri.URI
	path     string // real absolute path; the one-run-per-document key
	rel      string // for titles and progress
	language string
	content  []byte
	version  int32 // -1 when the file is not open in the editor
}

// resolveTarget finds the run's document: the open buffer (unsaved text
// included), or the file on disk through the workspace and its guard.
func (s *Server) resolveTarget(ctx context.Context, u uri.URI) (target, error) {
	if b, ok := s.overlay.Get(u); ok {
		snap := b.Snapshot()
		t := target{uri: u, path: snap.Path, language: snap.LanguageID, content: snap.Content, version: snap.Version}
		t.rel = s.displayPath(snap.Path)
		return t, nil
	}
	path, err := fileuri.ToPath(u)
	if err != nil {
		return target{}, invalidParams("%v", err)
	}
	gp, err := s.Guard().Resolve(path)
	if err != nil {
		return target{}, fmt.Errorf("%s: %w", path, err)
	}
	doc, err := s.workspace.Read(ctx, gp)
	if err != nil {
		return target{}, fmt.Errorf("read %s: %w", path, err)
	}
	return target{uri: u, path: gp.Abs, rel: s.displayPath(gp.Abs), language: languageOf(gp.Abs), content: doc.Content, version: -1}, nil
}

// displayPath returns path relative to the work root when it is inside it.
func (s *Server) displayPath(path string) string {
	if root := s.Guard().WorkRoot(); root != "" {
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// buildTask turns a run request into the agent's Task. LSP positions are
// converted with the negotiated encoding; lines become 1-based.
func buildTask(a runArgs, t target, enc protocol.PositionEncodingKind) agent.Task {
	task := agent.Task{Command: a.Command, Input: a.Input}
	if t.path == "" {
		return task
	}
	task.Path, task.Language, task.Content = t.path, t.language, t.content
	if a.Range != nil {
		start := OffsetOf(t.content, a.Range.Start, enc)
		end := OffsetOf(t.content, a.Range.End, enc)
		if end < start {
			start, end = end, start
		}
		task.Selection = string(t.content[start:end])
		task.StartLine, task.EndLine = selectionLines(*a.Range)
	}
	for _, d := range a.Diagnostics {
		task.Diagnostics = append(task.Diagnostics, convertDiagnostic(d))
	}
	return task
}

// selectionLines returns the 1-based inclusive lines a range covers. A
// selection that ends at column 0 of a later line (whole lines selected,
// as editors do) does not include that line. An empty range is its line.
func selectionLines(r protocol.Range) (int, int) {
	start, end := int(r.Start.Line)+1, int(r.End.Line)+1
	if r.End.Character == 0 && r.End.Line > r.Start.Line {
		end--
	}
	if end < start {
		start, end = end, start
	}
	return start, end
}

// convertDiagnostic maps an LSP diagnostic (any source) to the agent's.
func convertDiagnostic(d protocol.Diagnostic) agent.Diagnostic {
	out := agent.Diagnostic{
		Line:     int(d.Range.Start.Line) + 1,
		Column:   int(d.Range.Start.Character) + 1,
		Severity: severityName(d.Severity),
	}
	if src, ok := d.Source.Get(); ok {
		out.Source = src
	}
	switch c := d.Code.(type) {
	case protocol.String:
		out.Code = string(c)
	case protocol.Integer:
		out.Code = strconv.Itoa(int(c))
	}
	switch m := d.Message.(type) {
	case protocol.String:
		out.Message = string(m)
	case *protocol.MarkupContent:
		if m != nil {
			out.Message = m.Value
		}
	}
	return out
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return ""
}

// languageOf guesses a language id from a file name, for files the editor
// has not opened (an open buffer carries its own).
func languageOf(path string) string {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if id, ok := languageByExt[ext]; ok {
		return id
	}
	return ext // go, c, cpp, java, lua, php, html, css, json, toml, sql… are their own ids
}

var languageByExt = map[string]string{
	"py": "python", "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascriptreact",
	"ts": "typescript", "tsx": "typescriptreact", "rs": "rust", "rb": "ruby", "sh": "shellscript", "bash": "shellscript",
	"md": "markdown", "yml": "yaml", "h": "c", "hpp": "cpp", "cc": "cpp", "cs": "csharp", "kt": "kotlin",
}

// errRunBusy is wrapped by the error for a second run on a document.
var errRunBusy = errors.New("this document already has a run")

// cancelHint says how to cancel run id in each client: the user reads the
// message in whichever editor they use.
func cancelHint(id string) string {
	return fmt.Sprintf("cancel it (Agent: Cancel Run in VS Code, :CatbuddyCancel in Neovim, catbuddy.cancel {\"runId\": %q} from any client)", id)
}
