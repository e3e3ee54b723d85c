package lspclient_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// entryProject has a struct literal aligned by gofmt: renaming its
// short field to a longer name misaligns the other keys unless the
// rename is formatted.
var entryProject = map[string]string{
	"go.mod": "module example.com/entry\n\ngo 1.22\n",
	"entry.go": `package entry

// Entry is one log entry.
type Entry struct {
	Message string
	err     string
	Level   int
}

// New returns an entry.
func New(msg string) Entry {
	e := Entry{
		Message: msg,
		err:     "",
		Level:   1,
	}
	if e.err != "" {
		return Entry{Message: e.err, err: e.err}
	}
	return e
}
`,
}

// TestGoplsRenameIsGofmtClean: after a rename in a struct literal the
// file is formatted (gofmt -l lists nothing), in the same change; and the
// rename's count agrees with the references answer before it.
func TestGoplsRenameIsGofmtClean(t *testing.T) {
	dir := writeProject(t, entryProject)
	reg, _ := headless(t, dir)
	gofmt := testenv.NeedsTool(t, "gofmt", "the formatting check", "install Go")

	refs := run(t, reg, "lsp", map[string]any{"operation": "references", "path": "entry.go", "line": 14, "symbol": "err"})
	if refs.IsError || !strings.HasPrefix(refs.Output, "6 references to err") || !strings.Contains(refs.Output, ", the declaration included:") {
		t.Fatalf("references:\n%s", refs.Output)
	}
	if !strings.Contains(refs.Output, "[3 on this line, at columns") {
		t.Errorf("the three uses on line 18 are not each listed:\n%s", refs.Output)
	}
	res := run(t, reg, "rename_symbol", map[string]any{"path": "entry.go", "line": 14, "symbol": "err", "new_name": "fieldErr"})
	if res.IsError || !strings.HasPrefix(res.Output, "Rename of err to fieldErr: 6 occurrences in 1 file.") {
		t.Fatalf("rename:\n%s", res.Output)
	}
	if strings.Contains(res.Output, "The last references answer") {
		t.Errorf("the counts agree, yet the rename explains a difference:\n%s", res.Output)
	}
	out, err := exec.Command(gofmt, "-l", dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		b, _ := os.ReadFile(filepath.Join(dir, "entry.go"))
		t.Fatalf("gofmt -l after the rename: %s %v\n%s", out, err, b)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "entry.go"))
	if !strings.Contains(string(b), "\t\tfieldErr: \"\",\n") || !strings.Contains(string(b), "\t\tMessage:  msg,\n") {
		t.Fatalf("entry.go after the rename:\n%s", b)
	}
}

// TestGoplsReplaceSymbolIsFormatted: a declaration written with spaces
// for indentation is formatted by gopls in the same change.
func TestGoplsReplaceSymbolIsFormatted(t *testing.T) {
	dir := writeProject(t, entryProject)
	reg, _ := headless(t, dir)
	gofmt := testenv.NeedsTool(t, "gofmt", "the formatting check", "install Go")
	res := run(t, reg, "replace_symbol", map[string]any{"path": "entry.go", "symbol": "New",
		"new_text": "func New(msg string) Entry {\n    return Entry{Message:msg, Level:2}\n}"})
	if res.IsError {
		t.Fatalf("replace_symbol:\n%s", res.Output)
	}
	out, err := exec.Command(gofmt, "-l", dir).CombinedOutput()
	b, _ := os.ReadFile(filepath.Join(dir, "entry.go"))
	if err != nil || strings.TrimSpace(string(out)) != "" || !strings.Contains(string(b), "\treturn Entry{Message: msg, Level: 2}\n") {
		t.Fatalf("gofmt -l after replace_symbol: %s %v\n%s", out, err, b)
	}
}
