package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lspEdit is one TextEdit replacing the n-th occurrence of old in path.
func lspEdit(t *testing.T, path, old string, n int, text string) map[string]any {
	t.Helper()
	start := textAt(t, path, old, n)
	end := start
	end.Character += uint32(len([]rune(old))) // ASCII identifiers
	return map[string]any{"range": protocol.Range{Start: start, End: end}, "newText": text}
}

// renameServer answers prepareRename and rename of Add to new_name in
// both files (the declaration and two calls), as documentChanges.
func renameServer(t *testing.T, dir string) fake.LanguageFeatureFunc {
	main, calc := filepath.Join(dir, "main.go"), filepath.Join(dir, "calc.go")
	return func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		switch method {
		case "textDocument/prepareRename":
			return map[string]any{"range": protocol.Range{}, "placeholder": "Add"}, nil
		case "textDocument/rename":
			var p struct {
				NewName string `json:"newName"`
			}
			_ = json.Unmarshal(raw, &p)
			if p.NewName == "1Plus" {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid identifier to rename: %q", p.NewName)
			}
			return map[string]any{"documentChanges": []any{
				map[string]any{"textDocument": map[string]any{"uri": fileuri.FromPath(calc), "version": nil},
					"edits": []any{lspEdit(t, calc, "Add", 1, p.NewName)}},
				map[string]any{"textDocument": map[string]any{"uri": fileuri.FromPath(main), "version": nil},
					"edits": []any{lspEdit(t, main, "Add", 1, p.NewName), lspEdit(t, main, "Add", 2, p.NewName)}},
			}}, nil
		}
		return nil, nil
	}
}

func TestRenameSymbolThroughReview(t *testing.T) {
	dir := writeTree(t, langProject)
	e := langEditor(t, dir, 0, renameServer(t, dir), allFeatures...)
	out, isErr := e.RunTool("rename_symbol", map[string]any{"path": "calc.go", "line": 4, "symbol": "Add", "new_name": "Plus"})
	if isErr || !strings.HasPrefix(out, "Rename of Add to Plus: 3 occurrences in 2 files.") {
		t.Fatalf("rename:\n%s", out)
	}
	edits := e.AppliedEdits()
	if len(edits) != 1 || len(edits[0].Edit.ChangeAnnotations) != 3 {
		t.Fatalf("want one reviewed applyEdit with an annotation per hunk, got %d edits", len(edits))
	}
	main := e.Text(fileuri.FromPath(filepath.Join(dir, "main.go")))
	if !strings.Contains(main, `println(s, Plus(1, 2), Plus(3, 4))`) {
		t.Fatalf("main.go after the rename:\n%s", main)
	}
}

func TestRenamePartlyRejectedSaysWhatLanded(t *testing.T) {
	dir := writeTree(t, langProject)
	e := langEditor(t, dir, 0, renameServer(t, dir), allFeatures...)
	// The user unticks the first call in main.go in Refactor Preview.
	var labels []string
	e.SetApplyEdit(func(ed *fake.Editor, p *protocol.ApplyWorkspaceEditParams) *protocol.ApplyWorkspaceEditResult {
		for _, a := range p.Edit.ChangeAnnotations {
			labels = append(labels, a.Label)
		}
		first := true
		return fake.AcceptHunks(func(label string) bool {
			if strings.HasPrefix(label, "main.go") && first {
				first = false
				return false
			}
			return true
		})(ed, p)
	})
	out, isErr := e.RunTool("rename_symbol", map[string]any{"path": "calc.go", "line": 4, "symbol": "Add", "new_name": "Plus"})
	if isErr || !strings.Contains(out, "Edited calc.go") || !strings.Contains(out, "Applied 1 of 2 hunks to main.go; the user rejected hunk") {
		t.Fatalf("partly rejected rename (labels %v):\n%s", labels, out)
	}
}

func TestRenameBadInputChangesNothing(t *testing.T) {
	dir := writeTree(t, langProject)
	outside := writeTree(t, "-- other.go --\npackage other\n")
	e := langEditor(t, dir, 0, renameServer(t, dir), allFeatures...)
	before := readFile(t, filepath.Join(dir, "main.go"))
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "main.go", "line": 3, "symbol": "Sub", "new_name": "Plus"},
			`"Sub" is not on line 3 of main.go, which reads: func main() { s := "🐱é🐱"; println(s, Add(1, 2), Add(3, 4)) }`},
		{map[string]any{"path": "main.go", "line": 3, "symbol": "Add", "occurrence": 3, "new_name": "Plus"}, `"Add" appears 2 times on line 3 of main.go, not 3`},
		{map[string]any{"path": "main.go", "line": 40, "symbol": "Add", "new_name": "Plus"}, "line 40 is past the end of main.go (3 lines)"},
		{map[string]any{"path": filepath.Join(outside, "other.go"), "line": 1, "symbol": "other", "new_name": "x"}, "outside"},
		{map[string]any{"path": "main.go", "line": 3, "symbol": "Add", "new_name": "two words"}, `new_name "two words" contains white space`},
		{map[string]any{"path": "main.go", "line": 3, "symbol": "Add", "new_name": "1Plus"}, `invalid identifier to rename: "1Plus"; nothing was changed`},
	}
	for _, c := range cases {
		out, isErr := e.RunTool("rename_symbol", c.args)
		if !isErr || !strings.Contains(out, c.want) {
			t.Errorf("rename_symbol %v: want an error with %q, got %v:\n%s", c.args, c.want, isErr, out)
		}
	}
	if n := len(e.AppliedEdits()); n != 0 {
		t.Fatalf("bad input sent %d edits", n)
	}
	if after := readFile(t, filepath.Join(dir, "main.go")); after != before {
		t.Fatalf("main.go changed:\n%s", after)
	}
}

func TestCodeActionListsAndApplies(t *testing.T) {
	dir := writeTree(t, langProject)
	calc := filepath.Join(dir, "calc.go")
	e := langEditor(t, dir, 0, func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		if method != "textDocument/codeAction" {
			return nil, nil
		}
		var p struct {
			Range   protocol.Range `json:"range"`
			Context struct {
				Only []string `json:"only"`
			} `json:"context"`
		}
		_ = json.Unmarshal(raw, &p)
		if p.Range.Start.Line != 3 || p.Range.End.Line != 3 {
			t.Errorf("code action range %+v, want line 3", p.Range)
		}
		return []any{
			map[string]any{"title": "Rename a to x", "kind": "refactor.rewrite", "isPreferred": true, "edit": map[string]any{
				"changes": map[string]any{string(fileuri.FromPath(calc)): []any{lspEdit(t, calc, "a,", 1, "x,"), lspEdit(t, calc, "a +", 1, "x +")}}}},
			map[string]any{"title": "Run tests", "command": "gopls.test"},
			map[string]any{"title": "Extract function", "kind": "refactor.extract", "disabled": map[string]any{"reason": "no selection"}},
		}, nil
	}, allFeatures...)

	out, isErr := e.RunTool("code_action", map[string]any{"path": "calc.go", "line": 4})
	for _, want := range []string{"3 code actions at calc.go:4", "- Rename a to x [refactor.rewrite; preferred]",
		"- Run tests [runs an editor command: not applicable here]", "- Extract function [refactor.extract; disabled: no selection]"} {
		if isErr || !strings.Contains(out, want) {
			t.Fatalf("list: want %q in\n%s", want, out)
		}
	}
	out, isErr = e.RunTool("code_action", map[string]any{"path": "calc.go", "line": 4, "title": "Run tests"})
	if !isErr || !strings.Contains(out, "only runs the editor command gopls.test") {
		t.Fatalf("command-only action: %s", out)
	}
	out, isErr = e.RunTool("code_action", map[string]any{"path": "calc.go", "line": 4, "title": "Rename a to x"})
	if isErr || !strings.Contains(out, "Edited calc.go") {
		t.Fatalf("apply: %s", out)
	}
	if got := e.Text(fileuri.FromPath(calc)); !strings.Contains(got, "func Add(x, b int) int { return x + b }") {
		t.Fatalf("calc.go after the action:\n%s", got)
	}
}

func TestReplaceSymbolByOutlineRange(t *testing.T) {
	dir := writeTree(t, "-- calc.go --\npackage calc\n\n// Ünïcode 🐱\nfunc Add(a, b int) int { return a + b }\n\ntype T struct{}\n\nfunc (T) Add() {}\n")
	calc := filepath.Join(dir, "calc.go")
	rng := func(l1, c1, l2, c2 uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
	}
	e := langEditor(t, dir, 0, func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		return []any{
			map[string]any{"name": "Add", "kind": 12, "range": rng(3, 0, 3, 39), "selectionRange": rng(3, 5, 3, 8)},
			map[string]any{"name": "T", "kind": 23, "range": rng(5, 0, 5, 15), "selectionRange": rng(5, 5, 5, 6)},
			map[string]any{"name": "(T).Add", "kind": 6, "range": rng(7, 0, 7, 17), "selectionRange": rng(7, 9, 7, 12)},
		}, nil
	}, allFeatures...)
	out, isErr := e.RunTool("replace_symbol", map[string]any{"path": "calc.go", "symbol": "Add", "new_text": "x"})
	if !isErr || !strings.Contains(out, "2 symbols are called Add") {
		t.Fatalf("ambiguous: %s", out)
	}
	out, isErr = e.RunTool("replace_symbol", map[string]any{"path": "calc.go", "symbol": "Sub", "new_text": "x"})
	if !isErr || !strings.Contains(out, "no symbol Sub in calc.go") || !strings.Contains(out, "function Add (line 4)") {
		t.Fatalf("missing: %s", out)
	}
	out, isErr = e.RunTool("replace_symbol", map[string]any{"path": "calc.go", "symbol": "T.Add", "new_text": "func (T) Add() { println(\"🐱\") }\n"})
	if isErr {
		t.Fatalf("replace: %s", out)
	}
	want := "package calc\n\n// Ünïcode 🐱\nfunc Add(a, b int) int { return a + b }\n\ntype T struct{}\n\nfunc (T) Add() { println(\"🐱\") }\n"
	if got := e.Text(fileuri.FromPath(calc)); got != want {
		t.Fatalf("calc.go:\n%s\nwant:\n%s", got, want)
	}
}
