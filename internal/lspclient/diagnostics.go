package lspclient

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// The servers cb-ls starts publish their diagnostics (publishDiagnostics)
// and the client keeps the last of each document. An edit's result names
// the problems it introduced: the diagnostics of the file before the edit
// and after it, each taken under the view of the run in ctx (view.go) once
// they have settled by the rule the editor's clients follow
// (tools.SettleQuiet, tools.SettleCap). A server that tags its
// diagnostics with the document's version (gopls does, for every
// version, changed or not) is read as settled as soon as it published
// for the version it was shown, and waited for until the cap otherwise:
// on a loaded machine the quiet period alone would read a slow server's
// diagnostics of the text before. A server that does not tag them but
// publishes after every change, unchanged diagnostics too (republishes:
// pyright), is waited for the same way, for on a loaded machine it takes
// longer than the quiet period to; its first publish after the change
// is then followed for freshQuiet more. Either kind that lets the cap
// pass without publishing for the change answers what it had with a
// tools.SlowCheckError, so that the result says the check had not
// finished instead of "nothing new". Any other server
// (typescript-language-server publishes only what changed) is read
// after the quiet period.

// republishesAlways names the servers known to publish a document's
// diagnostics after every change, by program or configured name.
var republishesAlways = map[string]bool{"pyright": true, "pyright-langserver": true, "basedpyright": true, "basedpyright-langserver": true}

// freshQuiet is how long the diagnostics of a server that does not tag
// versions must stay unchanged after its first publish since the change.
const freshQuiet = 250 * time.Millisecond

// published is one publishDiagnostics of a document.
type published struct {
	raw       json.RawMessage
	version   int32
	versioned bool // the server said which version it checked
	at        time.Time
}

// published records a publishDiagnostics and wakes those waiting for one.
func (s *server) published(u uri.URI, version *int32, raw json.RawMessage) {
	p := published{raw: bytes.Clone(raw), at: time.Now()}
	if version != nil {
		p.version, p.versioned = *version, true
	}
	s.mu.Lock()
	if prev, ok := s.diags[u]; ok && !p.versioned && bytes.Equal(prev.raw, p.raw) {
		for _, d := range s.docs {
			if d.uri == u && prev.at.Before(d.changed) {
				s.republishes = true // the same list again, after a change
			}
		}
	}
	s.diags[u] = p
	s.versions = s.versions || p.versioned
	close(s.diagsNews)
	s.diagsNews = make(chan struct{})
	s.mu.Unlock()
}

// settled waits until the diagnostics of path, which s has open, have
// settled after its last change, and returns them.
func (s *server) settled(ctx context.Context, path string) ([]tools.Diagnostic, error) {
	limit := time.NewTimer(tools.SettleCap)
	defer limit.Stop()
	for {
		s.mu.Lock()
		d := s.docs[path]
		if d == nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("%s is not open in %s", path, s.name)
		}
		p, ok := s.diags[d.uri]
		news := s.diagsNews
		versioned := ok && p.versioned && p.version >= d.version
		unversioned := ok && !p.versioned && !p.at.Before(d.changed)
		quiet := time.Until(d.changed.Add(tools.SettleQuiet))
		switch {
		case s.versions:
			quiet = tools.SettleCap // it will publish for this version
		case unversioned && s.republishes:
			quiet = time.Until(p.at.Add(freshQuiet))
		case unversioned:
			quiet = 0 // it published what changed
		case ok && s.republishes:
			quiet = tools.SettleCap // it will publish again
		}
		s.mu.Unlock()
		if versioned || quiet <= 0 {
			return convertDiagnostics(p.raw), nil
		}
		wait := time.NewTimer(quiet)
		select {
		case <-news:
		case <-wait.C:
		case <-limit.C:
			wait.Stop()
			if s.versions || ok && s.republishes && !unversioned {
				// It publishes after every change, and has not for this
				// one: what it had may be of the text before.
				return convertDiagnostics(p.raw), &tools.SlowCheckError{Server: s.name}
			}
			return convertDiagnostics(p.raw), nil
		case <-ctx.Done():
			wait.Stop()
			return nil, ctx.Err()
		}
		wait.Stop()
	}
}

// known returns the diagnostics s last published for path, if it has
// path open and published for it.
func (s *server) known(path string) ([]tools.Diagnostic, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[path]
	if d == nil {
		return nil, false
	}
	p, ok := s.diags[d.uri]
	if !ok {
		return nil, false
	}
	return convertDiagnostics(p.raw), true
}

// convertDiagnostics reads a publishDiagnostics' list as the tools see
// it; what cannot be read is left out.
func convertDiagnostics(raw json.RawMessage) []tools.Diagnostic {
	var ds []struct {
		Range struct {
			Start struct {
				Line      int `json:"line"`
				Character int `json:"character"`
			} `json:"start"`
		} `json:"range"`
		Severity int             `json:"severity"`
		Source   string          `json:"source"`
		Code     json.RawMessage `json:"code"`
		Message  string          `json:"message"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &ds) != nil {
		return nil
	}
	out := make([]tools.Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, tools.Diagnostic{Line: d.Range.Start.Line + 1, Column: d.Range.Start.Character + 1,
			Severity: severityName(d.Severity), Source: d.Source, Code: codeText(d.Code), Message: d.Message})
	}
	return out
}

// severityName names an LSP DiagnosticSeverity; a diagnostic without
// one is an error, as LSP leaves it to the client and editors show it.
func severityName(s int) string {
	switch s {
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	}
	return "error"
}

// codeText is a diagnostic's code, a string or a number.
func codeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return strconv.FormatInt(n, 10)
	}
	return ""
}

// codeExtensions are the file endings of languages a build checks: an
// edit of one that no server checks says so. Other files (prose,
// settings, data) have nothing to say about it.
var codeExtensions = []string{".go", ".py", ".pyi", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
	".rs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".java", ".kt", ".kts", ".scala", ".cs", ".fs", ".swift",
	".m", ".rb", ".php", ".lua", ".zig", ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".vue", ".svelte"}

// uncheckedLanguage is the answer for a file of a language no server
// checks in the run's view, or a plain error for a file of no language
// a build checks (an edit of it says nothing).
func uncheckedLanguage(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if !slices.Contains(codeExtensions, ext) {
		return fmt.Errorf("no language server cb-ls started checks %s files", cmp.Or(ext, filepath.Base(path)))
	}
	return &tools.UncheckedError{Key: ext, Note: fmt.Sprintf("no language server checks this run's %s files; build to check", ext)}
}

// uncheckedServer is the answer for a file whose server cannot answer.
func uncheckedServer(name, path string, err error) error {
	return &tools.UncheckedError{Key: name, Note: fmt.Sprintf("%s could not check this run's %s files (%v); build to check", name, strings.ToLower(filepath.Ext(path)), err)}
}

// DiagnosticsIn implements lspfeatures.DiagnosticsConn: the diagnostics
// path's server published for it, under the view of the run in ctx and
// once settled, whose range overlaps r, as the server sent them.
func (c *Client) DiagnosticsIn(ctx context.Context, path string, r protocol.Range) []json.RawMessage {
	s, err := c.serverOf(ctx, path)
	if err != nil {
		return nil
	}
	leave, _, err := c.enterView(ctx, s)
	if err != nil {
		return nil
	}
	defer leave()
	if !s.isOpen(path) {
		return nil
	}
	var slow *tools.SlowCheckError
	if _, err := s.settled(ctx, path); err != nil && !errors.As(err, &slow) {
		return nil
	}
	s.mu.Lock()
	var raw json.RawMessage
	if d := s.docs[path]; d != nil {
		raw = s.diags[d.uri].raw
	}
	s.mu.Unlock()
	var items []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []json.RawMessage
	for _, item := range items {
		var d struct {
			Range protocol.Range `json:"range"`
		}
		if json.Unmarshal(item, &d) == nil && !before(r.End, d.Range.Start) && !before(d.Range.End, r.Start) {
			out = append(out, item)
		}
	}
	return out
}

// before reports whether position a comes before b.
func before(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}
