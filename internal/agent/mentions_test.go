package agent

import (
	"strings"
	"testing"
)

func TestMentionedFiles(t *testing.T) {
	root, r := project(t, map[string]string{"pkg/calc.go": "package pkg\n", "a b.txt": "x\n"})
	got := mentionedFiles(t.Context(), r.Files, "Fix (@pkg/calc.go). Also see @pkg/calc.go, mail me@example.com and @nope.go!", root)
	if n := strings.Count(got, "File pkg/calc.go (mentioned as @pkg/calc.go)"); n != 1 {
		t.Errorf("pkg/calc.go brought %d times, want once:\n%s", n, got)
	}
	if !strings.Contains(got, "```go\n     1\tpackage pkg\n```") || !strings.Contains(got, "@nope.go: no such file") {
		t.Errorf("mentions section:\n%s", got)
	}
	if strings.Contains(got, "example.com") {
		t.Errorf("an e-mail address was taken for a mention:\n%s", got)
	}
	if mentionedFiles(t.Context(), r.Files, "no mentions here", root) != "" || mentionedFiles(t.Context(), nil, "@pkg/calc.go", root) != "" {
		t.Error("a section without mentions or without Files")
	}
}
