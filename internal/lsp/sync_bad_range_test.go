package lsp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadRangeMarksOutOfSync: a didChange whose range cannot be decoded
// (a negative line, a string, a float) must not be taken for a whole-document change: the buffer is marked out of
// sync, keeps no guessed text, and a full-text change heals it.
func TestBadRangeMarksOutOfSync(t *testing.T) {
	dir := writeTree(t, "-- x --\n")
	e := newEditor(t, dir)
	for i, r := range []string{
		`{"start":{"line":-1,"character":0},"end":{"line":0,"character":1}}`,
		`{"start":{"line":"0","character":0},"end":{"line":0,"character":1}}`,
		`{"start":{"line":0.5,"character":0},"end":{"line":0,"character":1}}`,
		`{"start":{"line":0,"character":1e3},"end":{"line":0,"character":1}}`,
		`"0:0-0:1"`,
		`null`,
	} {
		t.Run(r, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("b%d.txt", i))
			u := e.OpenText(path, "one\ntwo\n")
			body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"range":%s,"text":"REPLACED"}]}}`, u, r)
			if err := e.WriteRaw(frame(body)); err != nil {
				t.Fatal(err)
			}
			out, isErr := e.RunTool("test_read", map[string]string{"path": path})
			if !isErr || !strings.Contains(out, "out of sync") {
				t.Fatalf("read after a change with range %s: %q (error=%v), want out of sync", r, out, isErr)
			}
			if out, isErr := applyProbe(t, e, map[string]any{"path": path, "start": 0, "end": 1, "text": "O"}); !isErr {
				t.Errorf("edit of the out-of-sync buffer went through: %q", out)
			}
			e.Notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": u, "version": 3},
				"contentChanges": []any{map[string]any{"text": "healed\n"}},
			})
			if got := readProbe(t, e, path); got != "healed\n" {
				t.Errorf("after a full-text change: %q", got)
			}
		})
	}
}
