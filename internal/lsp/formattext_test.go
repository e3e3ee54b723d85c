package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// entryProject has a struct literal aligned by gofmt: renaming its short
// field to a longer name misaligns the other keys unless the rename is
// formatted. It is ASCII, so gopls's UTF-8 positions are cb-ls's UTF-16
// ones and the fake editor forwards them as they are.
const entryProject = `
-- go.mod --
module example.com/entry

go 1.22
-- entry.go --
package entry

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
`

// goplsEditor is a fake editor whose language servers are a real gopls:
// catbuddy/languageFeature is asked of gopls about the file on disk, and
// catbuddy/formatText formats the text as the editor's scratch buffer
// would: gopls is shown the text as the file's content, formats it, and
// is shown the disk again.
func goplsEditor(t *testing.T, dir string) *fake.Editor {
	t.Helper()
	gopls := testenv.NeedsTool(t, "gopls", "the editor bridge formatting test", "PATH=\"$(bash scripts/get-gopls.sh):$PATH\"")
	c := lspclient.New(lspclient.Options{Roots: []string{dir},
		Servers: map[string]lspclient.ServerConfig{"gopls": {Command: []string{gopls}, Extensions: []string{".go"}}}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.Close(ctx)
	})
	e := fake.New(t, fake.Options{Folders: []string{dir},
		Capabilities: fake.WithFormatText(fake.LanguageFeatures(allFeatures...)),
		Server:       lsp.Options{RegisterTools: testTools}})
	pathOf := func(raw json.RawMessage) string {
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(raw, &p)
		path, err := fileuri.ToPath(uri.URI(p.TextDocument.URI))
		if err != nil {
			t.Errorf("languageFeature for %q: %v", p.TextDocument.URI, err)
		}
		return path
	}
	e.SetLanguageFeatures(func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		path := pathOf(raw)
		disk, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if _, _, err := c.Open(ctx, path, disk); err != nil {
			return nil, err
		}
		return c.Call(ctx, path, method, raw)
	})
	// gopls is shown each text as the file itself, so the two texts cb-ls
	// asks about at once are formatted one after the other.
	var formatting sync.Mutex
	e.SetFormatText(func(ctx context.Context, p lsp.FormatTextParams) (any, error) {
		formatting.Lock()
		defer formatting.Unlock()
		path, err := fileuri.ToPath(p.URI)
		if err != nil {
			return nil, err
		}
		disk, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		u, _, err := c.Open(ctx, path, []byte(p.Text))
		if err != nil {
			return nil, err
		}
		defer func() { _, _, _ = c.Open(context.WithoutCancel(ctx), path, disk) }()
		raw, err := c.Call(ctx, path, protocol.MethodTextDocumentFormatting,
			map[string]any{"textDocument": map[string]any{"uri": u}, "options": p.Options})
		if err != nil {
			return nil, err
		}
		var edits []map[string]any
		if err := json.Unmarshal(raw, &edits); err != nil {
			return nil, err
		}
		if edits == nil {
			edits = []map[string]any{}
		}
		return map[string]any{"edits": edits}, nil
	})
	return e
}

// TestEditorFormatsRenameGofmtClean: in the editor bridge a rename in a
// struct literal is formatted by the editor (catbuddy/formatText) in the
// same reviewed edit, and the file it leaves is gofmt -l clean.
func TestEditorFormatsRenameGofmtClean(t *testing.T) {
	dir := writeTree(t, entryProject)
	gofmt := testenv.NeedsTool(t, "gofmt", "the formatting check", "install Go")
	e := goplsEditor(t, dir)
	out, isErr := e.RunTool("rename_symbol", map[string]any{"path": "entry.go", "line": 14, "symbol": "err", "new_name": "fieldErr"})
	if isErr || !strings.HasPrefix(out, "Rename of err to fieldErr: 6 occurrences in 1 file.") {
		t.Fatalf("rename:\n%s", out)
	}
	if !strings.Contains(out, "(formatted by the editor.)") || strings.Contains(out, "not formatted") {
		t.Errorf("the answer does not say the editor formatted the change:\n%s", out)
	}
	if n := len(e.AppliedEdits()); n != 1 {
		t.Fatalf("want the rename and its formatting in one reviewed applyEdit, got %d", n)
	}
	// The file as it was and as the rename leaves it are asked about at once.
	reqs := e.FormatTextRequests()
	slices.SortFunc(reqs, func(a, b lsp.FormatTextParams) int { return strings.Compare(a.Text, b.Text) })
	if len(reqs) != 2 || reqs[0].URI != fileuri.FromPath(filepath.Join(dir, "entry.go")) || reqs[1].URI != reqs[0].URI ||
		!strings.Contains(reqs[0].Text, "\t\terr:     \"\",") || !strings.Contains(reqs[1].Text, "\t\tfieldErr:     \"\",") {
		t.Fatalf("want formatText of the file as it was and as the rename leaves it; got %+v", reqs)
	}
	text := e.Text(fileuri.FromPath(filepath.Join(dir, "entry.go")))
	if !strings.Contains(text, "\t\tfieldErr: \"\",\n") || !strings.Contains(text, "\t\tMessage:  msg,\n") {
		t.Fatalf("entry.go after the rename:\n%s", text)
	}
	check := filepath.Join(t.TempDir(), "entry.go")
	if err := os.WriteFile(check, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(gofmt, "-l", check).CombinedOutput(); err != nil || strings.TrimSpace(string(b)) != "" {
		t.Fatalf("gofmt -l after the rename: %s %v\n%s", b, err, text)
	}
}

// TestEditorFormatTextRefusals: an editor without a formatter (null),
// whose formatter fails, that does not declare formatText, or that
// answers too late leaves the rename as it is and the answer says why.
func TestEditorFormatTextRefusals(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	cases := []struct {
		name    string
		declare bool
		answer  fake.FormatTextFunc
		want    string
	}{
		{"null", true, func(context.Context, lsp.FormatTextParams) (any, error) { return nil, nil },
			"(the change is not formatted: the editor has no formatter for .go files.)"},
		{"error", true, func(context.Context, lsp.FormatTextParams) (any, error) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "prettier exploded")
		}, "calc.go is not formatted: the editor's formatter failed: prettier exploded.)"},
		{"undeclared", false, nil,
			"(the change is not formatted: the editor's language servers format only its buffers, and this editor does not format a text for cb-ls (catbuddy/formatText).)"},
		{"hung", true, func(ctx context.Context, _ lsp.FormatTextParams) (any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		}, "calc.go is not formatted: the editor's formatter did not answer within 300ms.)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, langProject)
			caps := fake.LanguageFeatures(allFeatures...)
			if tc.declare {
				caps = fake.WithFormatText(caps)
			}
			e := fake.New(t, fake.Options{Folders: []string{dir}, Capabilities: caps,
				Server: lsp.Options{RegisterTools: testTools, LanguageFeatureTimeout: 300 * time.Millisecond}})
			e.SetLanguageFeatures(renameServer(t, dir))
			e.SetFormatText(tc.answer)
			out, isErr := e.RunTool("rename_symbol", map[string]any{"path": "calc.go", "line": 4, "symbol": "Add", "new_name": "Plus"})
			if isErr || !strings.HasPrefix(out, "Rename of Add to Plus: 3 occurrences in 2 files.") || !strings.Contains(out, tc.want) {
				t.Fatalf("rename: want %q in\n%s", tc.want, out)
			}
			if strings.Contains(out, "formatted by the editor") {
				t.Errorf("the answer claims the editor formatted it:\n%s", out)
			}
			if got := len(e.FormatTextRequests()); tc.declare != (got > 0) {
				t.Errorf("%d formatText requests (declared: %v)", got, tc.declare)
			}
			main := e.Text(fileuri.FromPath(filepath.Join(dir, "main.go")))
			if !strings.Contains(main, `println(s, Plus(1, 2), Plus(3, 4))`) {
				t.Fatalf("main.go after the rename:\n%s", main)
			}
		})
	}
}

// TestEditorFormatTextWholeAndEdits: an editor that answers the whole formatted
// text (not edits) has it folded into the change; a text position in
// UTF-16 edits lands right after non-ASCII text. An editor that answers
// null for a text its formatter leaves as it is, as VS Code's format
// commands do, still formats the change.
func TestEditorFormatTextWholeAndEdits(t *testing.T) {
	for _, mode := range []string{"whole", "edits", "null when nothing changes"} {
		t.Run(mode, func(t *testing.T) {
			dir := writeTree(t, langProject)
			e := fake.New(t, fake.Options{Folders: []string{dir}, Capabilities: fake.WithFormatText(fake.LanguageFeatures(allFeatures...)),
				Server: lsp.Options{RegisterTools: testTools}})
			e.SetLanguageFeatures(renameServer(t, dir))
			// The "formatter" puts a space after each comma of a call to
			// Plus: the file as it was (calls to Add) needs nothing.
			e.SetFormatText(func(_ context.Context, p lsp.FormatTextParams) (any, error) {
				if mode == "whole" {
					return map[string]any{"whole": strings.ReplaceAll(p.Text, "Plus(1, 2)", "Plus(1,  2)")}, nil
				}
				k := strings.Index(p.Text, "Plus(1, 2)")
				if k < 0 {
					if mode != "edits" {
						return nil, nil
					}
					return map[string]any{"edits": []any{}}, nil
				}
				pos := fake.Position(p.Text, k+len("Plus(1,"))
				return map[string]any{"edits": []any{map[string]any{"range": protocol.Range{Start: pos, End: pos}, "newText": " "}}}, nil
			})
			out, isErr := e.RunTool("rename_symbol", map[string]any{"path": "calc.go", "line": 4, "symbol": "Add", "new_name": "Plus"})
			if isErr || !strings.Contains(out, "(formatted by the editor.)") {
				t.Fatalf("rename:\n%s", out)
			}
			main := e.Text(fileuri.FromPath(filepath.Join(dir, "main.go")))
			if !strings.Contains(main, `s := "🐱é🐱"; println(s, Plus(1,  2), Plus(3, 4))`) {
				t.Fatalf("main.go after the formatted rename:\n%s", main)
			}
		})
	}
}
