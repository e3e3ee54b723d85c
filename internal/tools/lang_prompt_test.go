package tools

import (
	"encoding/json"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
)

// everything supports every operation and answers nothing: the language
// tools' definitions are all that is measured here.
type everything struct{ LanguageFeatures }

func (everything) Supports(LanguageOp, string) bool { return true }

// definitionsSize is the size of the tool definitions sent with every
// request (the Anthropic form; OpenAI's wraps the same fields).
func definitionsSize(t testing.TB, lf LanguageFeatures) int {
	t.Helper()
	g, err := guard.New([]string{t.TempDir()}, guard.ModeAuto)
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := RegisterBuiltins(reg, &ToolContext{Guard: g, Workspace: DiskWorkspace{}, Language: lf}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(Specs(reg.List()))
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// languageToolsBudget is what the four language tools may add to the
// fixed prompt of every turn.
const languageToolsBudget = 2560

func TestLanguageToolsFixedPromptCost(t *testing.T) {
	before := definitionsSize(t, nil)
	after := definitionsSize(t, everything{})
	t.Logf("tool definitions: %d bytes without the language tools, %d with (+%d)", before, after, after-before)
	if after-before > languageToolsBudget {
		t.Fatalf("the language tools add %d bytes to every request; the budget is %d", after-before, languageToolsBudget)
	}
}

// BenchmarkFixedPromptSize reports the tool definitions' size without and
// with the language tools (bytes per request, not time).
func BenchmarkFixedPromptSize(b *testing.B) {
	before, after := definitionsSize(b, nil), definitionsSize(b, everything{})
	for b.Loop() {
	}
	b.ReportMetric(float64(before), "bytes-without")
	b.ReportMetric(float64(after), "bytes-with")
	b.ReportMetric(float64(after-before), "bytes-added")
}
