package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// maxFixedPrompt bounds what every request carries before the task: the
// system prompt and the definitions of every tool. Peers send 30–50 KB.
const maxFixedPrompt = 18 << 10

// noDiagnostics is an editor's diagnostics source, so that the
// diagnostics tool is offered as in the editor.
type noDiagnostics struct{}

func (noDiagnostics) Diagnostics(context.Context, string) ([]tools.Diagnostic, error) {
	return nil, nil
}
func (noDiagnostics) OpenFiles() []string { return nil }

// everyLanguageFeature claims every language feature, so that the
// language tools are offered with their full definitions, as in an
// editor whose language servers answer everything. Only Supports is
// called: no tool runs.
type everyLanguageFeature struct{ tools.LanguageFeatures }

func (everyLanguageFeature) Supports(tools.LanguageOp, string) bool { return true }

// fixedPromptBytes runs one turn of a one-word task with every built-in
// tool over the wire format of m and returns the request's size: the
// fixed prompt, plus the few bytes of the task and the request's frame.
func fixedPromptBytes(t *testing.T, m mode) (int, int) {
	r := projectWithDiagnostics(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "ok"}}})
	r.Config = m.config(srv)
	if _, err := r.Run(context.Background(), Task{Command: config.CommandAsk, Input: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	return len(req.Raw), len(req.ToolNames())
}

// projectWithDiagnostics is project(t, nil) with the editor's
// diagnostics tool and every language tool too.
func projectWithDiagnostics(t *testing.T) *Runner {
	t.Helper()
	_, r := project(t, nil)
	tc := r.Files.(*tools.ToolContext)
	tc.Diagnostics = noDiagnostics{}
	if err := r.Registry.Register(tools.DiagnosticsTool(tc)); err != nil {
		t.Fatal(err)
	}
	if err := tools.RegisterLanguageTools(r.Registry, tc, everyLanguageFeature{}); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFixedPromptSize: with every tool, the request of a one-word task
// stays within maxFixedPrompt in both wire formats. The figure is in the
// README's Benchmarks table: go test -run TestFixedPromptSize -v ./internal/agent
func TestFixedPromptSize(t *testing.T) {
	for _, m := range []mode{{"openai", false}, {"anthropic", false}} {
		n, ntools := fixedPromptBytes(t, m)
		t.Logf("%s: fixed prompt %d bytes (%.1f KB) with %d tools", m.provider, n, float64(n)/1024, ntools)
		if n > maxFixedPrompt {
			t.Errorf("%s: the fixed prompt is %d bytes, over %d", m.provider, n, maxFixedPrompt)
		}
		if want := len(tools.Builtins) + 1 + len(tools.LanguageTools(nil, everyLanguageFeature{})); ntools < want {
			t.Errorf("%s: %d tools offered, want %d: every built-in, diagnostics and the language tools", m.provider, ntools, want)
		}
	}
	if got := SystemPrompt("/w", nil, false, Environment{OS: "linux"}); strings.Contains(got, "Tools:") {
		t.Errorf("the system prompt lists the tools:\n%s", got)
	}
}
