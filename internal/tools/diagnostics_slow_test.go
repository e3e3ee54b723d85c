package tools

import (
	"context"
	"strings"
	"testing"
)

// slowSource answers every check with the diagnostics it had and a
// SlowCheckError, as a language server does whose check of the last
// change has not come within SettleCap.
type slowSource struct{ had []Diagnostic }

func (s slowSource) Diagnostics(context.Context, string) ([]Diagnostic, error) {
	return s.had, &SlowCheckError{Server: "pyright"}
}

func (s slowSource) OpenFiles(context.Context) []string { return nil }

// An edit whose check did not finish in time says so, and never reads
// as "nothing new"; the diagnostics tool lists what the server had and
// says it may be of the text before.
func TestSlowCheckIsSaid(t *testing.T) {
	e := newFileEnv(t, map[string]string{"area.py": "def area(w, h):\n    return w * h\n"})
	e.tc.Diagnostics = slowSource{had: []Diagnostic{{Severity: "warning", Message: "old warning", Source: "pyright"}}}
	if err := e.reg.Register(DiagnosticsTool(e.tc)); err != nil {
		t.Fatal(err)
	}
	e.call("read_file", map[string]any{"path": "area.py"})
	res := e.call("edit_file", map[string]any{"path": "area.py", "old_string": "w * h", "new_string": "w * height"})
	if res.IsError || !strings.Contains(res.Output, "Note: pyright had not finished checking this after 2s") {
		t.Errorf("the edit's result does not say the check had not finished:\n%s", res.Output)
	}
	if strings.Contains(res.Output, "old warning") {
		t.Errorf("a problem there before the edit is reported as new:\n%s", res.Output)
	}
	res = e.call("diagnostics", map[string]any{"path": "area.py"})
	if res.IsError || !strings.Contains(res.Output, "pyright had not finished checking it after 2s; what it had before:") || !strings.Contains(res.Output, "old warning") {
		t.Errorf("the diagnostics tool on a slow check:\n%s", res.Output)
	}
}
