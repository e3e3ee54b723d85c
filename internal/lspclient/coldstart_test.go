package lspclient_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/lspclient"
)

// complete checks a first answer: it lists every place, or it says it
// may be incomplete. Either is true; a partial answer stated as final
// is not.
func complete(t *testing.T, out string, places ...string) {
	t.Helper()
	if strings.Contains(out, "is still indexing; this answer may be incomplete") {
		return
	}
	for _, p := range places {
		if !strings.Contains(out, p) {
			t.Errorf("the first answer lacks %s and is not marked incomplete:\n%s", p, out)
		}
	}
}

// statusLog records the statuses a client reports.
type statusLog struct {
	mu    sync.Mutex
	texts []string
}

func (l *statusLog) add(s lspclient.Status) {
	l.mu.Lock()
	l.texts = append(l.texts, s.Text)
	l.mu.Unlock()
}

func (l *statusLog) has(prefix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.texts {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestGoplsColdStartReferences: the first question to a gopls that has
// just started is references; its answer is complete or marked.
func TestGoplsColdStartReferences(t *testing.T) {
	gopls := needGopls(t)
	dir := writeProject(t, goProject)
	var log statusLog
	reg, _ := headlessServersWith(t, dir, map[string]lspclient.ServerConfig{
		"gopls": {Command: []string{gopls}, Extensions: []string{".go"}},
	}, log.add)
	res := run(t, reg, "lsp", map[string]any{"operation": "references", "path": "calc/calc.go", "line": 4, "symbol": "Add"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	complete(t, res.Output, "calc/calc.go:4:", "calc/calc.go:11:", "main.go:10:")
	if !log.has("starting gopls…") {
		t.Errorf("the start was not reported: %q", log.texts)
	}
}

var pyProject = map[string]string{
	"pyproject.toml":      "[project]\nname = \"signing\"\nversion = \"0.1\"\n",
	"signing/__init__.py": "from .timed import TimestampSigner\n\n__all__ = [\"TimestampSigner\"]\n",
	"signing/timed.py": `class TimestampSigner:
    """Signs values with a timestamp."""

    def sign(self, value: str) -> str:
        return value + ".ts"
`,
	"signing/serializer.py": `from .timed import TimestampSigner


def make() -> TimestampSigner:
    return TimestampSigner()
`,
	"tests/test_timed.py": `from signing.timed import TimestampSigner


def test_sign() -> None:
    assert TimestampSigner().sign("a") == "a.ts"
`,
}

// TestPyrightColdStartReferences: pyright counts references only in the
// files it has read; its first answer is complete or marked.
func TestPyrightColdStartReferences(t *testing.T) {
	pyright := needNodeServer(t, "pyright-langserver")
	dir := writeProject(t, pyProject)
	reg, _ := headlessServersWith(t, dir, map[string]lspclient.ServerConfig{
		"pyright": {Command: []string{pyright, "--stdio"}, Extensions: []string{".py"}},
	}, nil)
	res := run(t, reg, "lsp", map[string]any{"operation": "references", "path": "signing/timed.py", "line": 1, "symbol": "TimestampSigner"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	complete(t, res.Output, "signing/timed.py:1:", "signing/__init__.py:1:", "signing/serializer.py:4:", "signing/serializer.py:5:",
		"tests/test_timed.py:1:", "tests/test_timed.py:5:")
}
