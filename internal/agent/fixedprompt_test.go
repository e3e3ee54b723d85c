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
// system prompt and the definitions of every tool, with exec's longest
// description. Peers send 30–50 KB; cb-ls sent 18 KB before each rule
// was said once and exec described only the run's case, 13.7 KB before
// the descriptions were cut to what changes what the model does and the
// schemas to names, types and enums.
const maxFixedPrompt = 10_500

// noDiagnostics is an editor's diagnostics source, so that the
// diagnostics tool is offered as in the editor.
type noDiagnostics struct{}

func (noDiagnostics) Diagnostics(context.Context, string) ([]tools.Diagnostic, error) {
	return nil, nil
}
func (noDiagnostics) OpenFiles(context.Context) []string { return nil }

// everyLanguageFeature claims every language feature, so that the
// language tools are offered with their full definitions, as in an
// editor whose language servers answer everything. Only Supports is
// called: no tool runs.
type everyLanguageFeature struct{ tools.LanguageFeatures }

func (everyLanguageFeature) Supports(tools.LanguageOp, string) bool { return true }

// fixedPromptBytes runs one turn of a one-word task with every built-in
// tool over the wire format of m and returns the request's size: the
// fixed prompt, plus the few bytes of the task and the request's frame.
// exec is described for this machine's case (its sandbox, its shell):
// worst is what the longest of exec's descriptions would add.
func fixedPromptBytes(t *testing.T, m mode) (n, ntools, worst int) {
	r := projectWithDiagnostics(t)
	srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "ok"}}})
	r.Config = m.config(srv)
	if _, err := r.Run(context.Background(), Task{Command: config.CommandAsk, Input: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	sent := toolDescription(t, req, "exec")
	for _, d := range tools.ExecDescriptions() {
		worst = max(worst, wireLen(d)-wireLen(sent))
	}
	return len(req.Raw), len(req.ToolNames()), worst
}

// toolDescription is the description req offers tool name with.
func toolDescription(t *testing.T, req agenttest.Request, name string) string {
	t.Helper()
	for _, tl := range req.Body["tools"].([]any) {
		m := tl.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok { // OpenAI
			m = fn
		}
		if m["name"] == name {
			return m["description"].(string)
		}
	}
	t.Fatalf("%s is not offered", name)
	return ""
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
		n, ntools, worst := fixedPromptBytes(t, m)
		t.Logf("%s: fixed prompt %d bytes (%.1f KB) with %d tools; %d with exec's longest description", m.provider, n, float64(n)/1024, ntools, n+worst)
		if n+worst > maxFixedPrompt {
			t.Errorf("%s: the fixed prompt is %d bytes with exec's longest description, over %d", m.provider, n+worst, maxFixedPrompt)
		}
		if want := len(tools.Builtins) + 1 + len(tools.LanguageTools(nil, everyLanguageFeature{})); ntools < want {
			t.Errorf("%s: %d tools offered, want %d: every built-in, diagnostics and the language tools", m.provider, ntools, want)
		}
	}
	if got := SystemPrompt("/w", false, Environment{OS: "linux"}); strings.Contains(got, "Tools:") {
		t.Errorf("the system prompt lists the tools:\n%s", got)
	}
}
