package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// rename_symbol through gopls says what it touched besides code: gopls
// renames Add's doc comment, counted apart with its line, and leaves a
// comment and a string in main.go that still say Add, which are named.
func TestRenameNamesCommentsAndStrings(t *testing.T) {
	testenv.NeedsTool(t, "gopls", "rename_symbol's comments and strings", `PATH="$(bash scripts/get-gopls.sh):$PATH"`)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":  "module example.com/sum\n\ngo 1.21\n",
		"calc.go": "package main\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n",
		"main.go": "package main\n\nimport \"fmt\"\n\n// main prints Add(1, 2).\nfunc main() {\n\tfmt.Println(\"Add:\", Add(1, 2))\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := `{"name":"rename_symbol","arguments":{"path":"calc.go","line":4,"symbol":"Add","new_name":"Sum"}}` + "\n"
	var out, errb bytes.Buffer
	if code := run([]string{"tools", "run", "--root", root, "--language-server", ".go=gopls"}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res cliResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.IsError {
		t.Fatalf("rename: %s (%v)", out.String(), err)
	}
	head, _, _ := strings.Cut(res.Output, "\nEdited")
	want := "Rename of Add to Sum: 3 occurrences in 2 files (2 in code, 1 in a comment: calc.go:3).\n" +
		"Add is still in 2 comments or strings of the files changed, which the language server did not rename: main.go:5 (comment), main.go:7 (string). Edit them if they name the symbol."
	if head != want {
		t.Errorf("the rename's result begins\n%s\nwant\n%s", head, want)
	}
}
