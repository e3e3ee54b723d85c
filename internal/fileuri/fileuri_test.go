package fileuri

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestRoundTrip: paths with the characters a URI reserves or cannot hold
// come back as they went, and the URI shows them escaped.
func TestRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	for _, c := range []struct{ path, uri string }{
		{"/w/plain.go", "file:///w/plain.go"},
		{"/w/a b/c d.go", "file:///w/a%20b/c%20d.go"},
		{"/w/#1/issue#2.go", "file:///w/%231/issue%232.go"},
		{"/w/100%/50%.go", "file:///w/100%25/50%25.go"},
		{"/w/%41%2F.go", "file:///w/%2541%252F.go"}, // looks escaped, is not
		{"/w/why?.go", "file:///w/why%3F.go"},
		{"/w/héllo/日本語.go", "file:///w/h%C3%A9llo/%E6%97%A5%E6%9C%AC%E8%AA%9E.go"},
		{"/w/C:/x.go", "file:///w/C:/x.go"},
		{"/w/a+b@c;d=e,f$&.go", "file:///w/a+b@c;d=e,f$&.go"},
		{"/w/it's (1) *!.go", "file:///w/it%27s%20%281%29%20%2A%21.go"},
	} {
		u := FromPath(c.path)
		if string(u) != c.uri {
			t.Errorf("FromPath(%q) = %s, want %s", c.path, u, c.uri)
		}
		back, err := ToPath(u)
		if err != nil || back != c.path {
			t.Errorf("ToPath(%s) = %q, %v; want %q", u, back, err, c.path)
		}
	}
}

// TestToPathReadsEveryEscaping: clients escape differently (VS Code's
// vscode-uri escapes ':', '@', '+' and more, Neovim leaves "!*'()" as
// they are, some send upper- or lower-case hex); each names one path.
func TestToPathReadsEveryEscaping(t *testing.T) {
	for _, c := range []struct{ uri, path string }{
		{"file:///w/a%3Ab%40c%2Bd.go", "/w/a:b@c+d.go"},
		{"file:///w/it's%20(1)%20*!.go", "/w/it's (1) *!.go"},
		{"file:///w/h%c3%a9llo.go", "/w/héllo.go"},
		{"file://localhost/w/a.go", "/w/a.go"},
		{"file:/w/a.go", "/w/a.go"},
		{"file:///w/sub/../a.go", "/w/a.go"},
		{"FILE:///w/a.go", "/w/a.go"},
	} {
		if p, err := ToPath(uri.URI(c.uri)); err != nil || p != c.path {
			t.Errorf("ToPath(%s) = %q, %v; want %q", c.uri, p, err, c.path)
		}
	}
}

// TestToPathRefuses: what is not a local absolute file is an error that
// says why, never a different file.
func TestToPathRefuses(t *testing.T) {
	for _, c := range []struct{ uri, why string }{
		{"untitled:Untitled-1", "not a file URI"},
		{"https://example.com/a.go", "not a file URI"},
		{"file://server/share/a.go", "another host"},
		{"file:///w/why?.go", "query or fragment"},
		{"file:///w/#1.go", "query or fragment"},
		{"file:///w/a.go#L3", "query or fragment"},
		{"file:relative/a.go", "absolute"},
		{"file:///w/bad%zz.go", "not a valid URI"},
		{"file:///w/a\x00.go", "not a valid URI"},
		{"", "not a file URI"},
	} {
		p, err := ToPath(uri.URI(c.uri))
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ToPath(%q) = %q, %v; want an error saying %q", c.uri, p, err, c.why)
		}
	}
}

// TestFromPathMakesAbsolute: a relative path is taken from the working
// directory, as every caller means it.
func TestFromPathMakesAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	u := FromPath("a b.go")
	p, err := ToPath(u)
	if err != nil || !strings.HasSuffix(p, "/a b.go") || !strings.HasPrefix(string(u), "file:///") {
		t.Errorf("FromPath(relative) = %s → %q, %v", u, p, err)
	}
	if FromPath("") != "" {
		t.Error("FromPath(\"\") is not empty")
	}
}

// TestNodeAgrees: Node's url.pathToFileURL, which the Node clients in
// the tests use, and FromPath name the same file both ways.
func TestNodeAgrees(t *testing.T) {
	node := testenv.NeedsTool(t, "node", "comparing file URIs with Node's url module", "install Node 20 (make test-node does)")
	paths := []string{"/w/a b/#1/100%/why?/h\u00e9llo/日本.go", "/w/it's (1) *!+@;=.go"}
	for _, p := range paths {
		out, err := exec.Command(node, "-e", `const u=require("node:url");const s=u.pathToFileURL(process.argv[1]).href;process.stdout.write(s+"\n"+u.fileURLToPath(process.argv[2]))`, p, string(FromPath(p))).Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		nodeURI, nodePath, _ := strings.Cut(string(out), "\n")
		if got, err := ToPath(uri.URI(nodeURI)); err != nil || got != p {
			t.Errorf("ToPath(node's %s) = %q, %v; want %q", nodeURI, got, err, p)
		}
		if nodePath != p {
			t.Errorf("node read FromPath(%q) = %s as %q", p, FromPath(p), nodePath)
		}
	}
}
