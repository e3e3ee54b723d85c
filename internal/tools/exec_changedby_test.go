package tools

import (
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestEditAfterFormatterRewrote: a file the run read, then rewritten by
// a command (gofmt -w, through exec with write), is not called unread:
// an edit whose old text survived says which command changed the file
// and that the edit applied to what the command left; one whose old
// text the command changed says the same command is why, and to read
// again; write_file names the command too.
func TestEditAfterFormatterRewrote(t *testing.T) {
	testenv.NeedsTool(t, "gofmt", "a formatter that rewrites a file", "install Go")
	e := newFileEnv(t, map[string]string{"f.go": "package a\nfunc f() int {\nx:=1\nreturn x\n}\n"})
	e.tc.Approver = ApproveAll
	if err := e.reg.Register(Exec(e.tc)); err != nil {
		t.Fatal(err)
	}
	e.call("read_file", argMap{"path": "f.go"})
	res := e.call("exec", argMap{"command": "gofmt -w f.go", "write": true, "reason": "format"})
	if res.IsError || !strings.Contains(res.Output, "f.go") {
		t.Fatalf("exec: %+v", res)
	}
	res = e.call("multi_edit", argMap{"path": "f.go", "edits": []argMap{{"old_string": "x:=1", "new_string": "x:=2"}}})
	if !res.IsError || !strings.Contains(res.Output, "`gofmt -w f.go` changed this file after you read it: read it again") {
		t.Errorf("multi_edit of text the formatter changed:\n%s", res.Output)
	}
	res = e.call("write_file", argMap{"path": "f.go", "content": "package a\n"})
	if !res.IsError || !strings.Contains(res.Output, "changed since you last read it (by `gofmt -w f.go`)") {
		t.Errorf("write_file:\n%s", res.Output)
	}
	res = e.call("edit_file", argMap{"path": "f.go", "old_string": "return x", "new_string": "return x + 1"})
	want := "Note (edit_file): `gofmt -w f.go` changed this file after you read it; old_string still matched, so the edit applied to the file as the command left it."
	if res.IsError || !strings.Contains(res.Output, want) || strings.Contains(res.Output, "not read") {
		t.Errorf("edit_file of text the formatter left:\n%s\nwant %q", res.Output, want)
	}
	if got := e.read("f.go"); got != "package a\n\nfunc f() int {\n\tx := 1\n\treturn x + 1\n}\n" {
		t.Errorf("f.go = %q", got)
	}
	// The edit is the run's own write: the next one is plain.
	res = e.call("edit_file", argMap{"path": "f.go", "old_string": "x + 1", "new_string": "x + 2"})
	if res.IsError || strings.Contains(res.Output, "Note") || strings.Contains(res.Output, "Warning") {
		t.Errorf("second edit:\n%s", res.Output)
	}
}
