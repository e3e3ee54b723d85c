package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// pendingLanguageCase is one language's project for the run's-view
// tests: lib defines area, use calls it, the run adds perimeter.
type pendingLanguageCase struct {
	name, program string
	server        string // the run-view server's name in answers
	files         map[string]string
	lib, use      string // the files the run edits
	addAfter      string // lib's line the run adds perimeter after
	perimeter     string // the function the run adds
	useFrom       string // use's text the run rewrites…
	useTo         string // …into a call of perimeter
	perimeterLine int    // perimeter's line in the run's lib
	undefined     string // the server's error for an undefined height
}

var pendingLanguageCases = []pendingLanguageCase{
	{
		name: "pyright", program: "pyright-langserver", server: "pyright",
		files: map[string]string{
			"shapes/__init__.py": "",
			"shapes/area.py":     "def area(w: int, h: int) -> int:\n    return w * h\n",
			"main.py":            "from shapes.area import area\n\nprint(area(2, 3))\n",
		},
		lib: "shapes/area.py", use: "main.py",
		addAfter:  "    return w * h\n",
		perimeter: "\n\ndef perimeter(w: int, h: int) -> int:\n    return 2 * (w + h)\n",
		useFrom:   "from shapes.area import area\n\nprint(area(2, 3))", useTo: "from shapes.area import area, perimeter\n\nprint(area(2, 3), perimeter(2, 3))",
		perimeterLine: 5, undefined: `"height" is not defined`,
	},
	{
		name: "typescript", program: "typescript-language-server", server: "typescript-language-server",
		files: map[string]string{
			"package.json":  `{"name":"shapes","version":"1.0.0","type":"module"}`,
			"tsconfig.json": `{"compilerOptions":{"target":"ES2022","module":"ES2022","moduleResolution":"bundler","strict":true},"include":["src"]}`,
			"src/area.ts":   "export function area(w: number, h: number): number {\n  return w * h;\n}\n",
			"src/main.ts":   "import { area } from \"./area\";\n\nconsole.log(area(2, 3));\n",
		},
		lib: "src/area.ts", use: "src/main.ts",
		addAfter:  "  return w * h;\n}\n",
		perimeter: "\nexport function perimeter(w: number, h: number): number {\n  return 2 * (w + h);\n}\n",
		useFrom:   "import { area } from \"./area\";\n\nconsole.log(area(2, 3));", useTo: "import { area, perimeter } from \"./area\";\n\nconsole.log(area(2, 3), perimeter(2, 3));",
		perimeterLine: 5, undefined: "Cannot find name 'height'",
	},
}

// TestPendingLanguagesOnTheRunsView: for Python (pyright) and
// TypeScript (typescript-language-server), found on PATH and started by
// cb-ls for the run's view in the editor: an edit that breaks the build
// while pending names the server's new error (the diagnostics tool
// lists it); the outline of the pending file lists the run's new function;
// a rename of it reaches its pending call in the other file and lands
// pending, the user's files unchanged. The editor's own servers (the
// fake's bridge) are never asked.
func TestPendingLanguagesOnTheRunsView(t *testing.T) {
	needsLayer(t)
	for _, tc := range pendingLanguageCases {
		t.Run(tc.name, func(t *testing.T) {
			testenv.NeedsTool(t, tc.program, "the language tools on the run's view in the editor", nodeServersInstall)
			testPendingLanguage(t, tc)
		})
	}
}

const nodeServersInstall = `PATH="$(bash scripts/get-node-language-servers.sh):$PATH"`

func testPendingLanguage(t *testing.T, tc pendingLanguageCase) {
	call := agenttest.Call
	libText := tc.files[tc.lib]
	turns := []agenttest.Turn{
		agenttest.CallTurn(call("read_file", map[string]any{"path": tc.lib})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": tc.lib, "old_string": "w * h", "new_string": "w * height"})),
		agenttest.CallTurn(call("diagnostics", map[string]any{"path": tc.lib})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": tc.lib, "old_string": "w * height", "new_string": "w * h"})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": tc.lib, "old_string": tc.addAfter, "new_string": tc.addAfter + tc.perimeter})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": tc.use})),
		agenttest.CallTurn(call("edit_file", map[string]any{"path": tc.use, "old_string": tc.useFrom, "new_string": tc.useTo})),
		agenttest.CallTurn(call("lsp", map[string]any{"operation": "document_symbols", "path": tc.lib})),
		agenttest.CallTurn(call("rename_symbol", map[string]any{"path": tc.lib, "line": tc.perimeterLine, "symbol": "perimeter", "new_name": "rim"})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": tc.lib})),
		agenttest.CallTurn(call("read_file", map[string]any{"path": tc.use})),
		agenttest.TextTurn("Done."),
	}
	f := newRunFixtureWith(t, agenttest.Script{Turns: turns}, func(o *fake.Options, init map[string]any) {
		init["maxSteps"] = 20
		o.PendingChanges = true
		o.Capabilities = func(c *protocol.ClientCapabilities) {
			c.Experimental, _ = json.Marshal(map[string]any{"catbuddy": map[string]any{"languageFeatures": allFeatures, "pendingChanges": true}})
		}
	})
	for name, text := range tc.files {
		p := filepath.Join(f.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.ed.SetLanguageFeatures(func(_ context.Context, method string, params json.RawMessage) (any, error) {
		t.Errorf("the editor's servers were asked %s %s, which the run's view answers", method, params)
		return nil, nil
	})
	// A server's first check waits for it to load the project (up to
	// its indexingWait), longer than the fake editor waits for an event:
	// the run's last model request says its tools are done.
	last := make(chan struct{})
	f.model.SetNext(func(i int, _ agenttest.Request) agenttest.Turn {
		if i == len(turns)-1 {
			close(last)
		}
		return turns[i]
	})
	runID := f.start(t, "catbuddy.run", map[string]any{"command": "ask", "input": "add perimeter"})
	select {
	case <-last:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the run's tools did not end within 3 minutes")
	}
	if end := f.awaitEnd(t, runID); end.Outcome != "done" {
		t.Fatalf("run ended %+v", end)
	}
	reqs := f.model.Requests()
	results := reqs[len(reqs)-1].ToolResults()
	if len(results) != 11 {
		t.Fatalf("%d tool results, want 11: %+v", len(results), results)
	}
	for i, r := range results {
		t.Logf("result %d:\n%s", i, r.Content)
	}
	broke, listed := results[1].Content, results[2].Content
	if !strings.Contains(broke, "pending the user's review") || !strings.HasPrefix(listed, "From "+tc.server+" (started by cb-ls), which sees this run's files") {
		t.Errorf("the breaking edit and the diagnostics of the run's %s:\n%s\n%s", tc.lib, broke, listed)
	}
	// Neither server tags its diagnostics with the version it checked.
	// pyright publishes after every change, which the settle rule waits
	// for up to its cap (lspclient/diagnostics.go): the edit's result
	// names the new error, or, on a machine so loaded that pyright had
	// not checked the edit by then, says so. typescript-language-server
	// publishes only what changed, so it is read after the quiet period,
	// which a loaded machine can outlast: that is the rule's limit, said
	// here rather than failed on.
	for what, out := range map[string]string{"the breaking edit's result": broke, "the run's diagnostics": listed} {
		switch {
		case strings.Contains(out, tc.undefined):
		case strings.Contains(out, tc.server+" had not finished checking"):
			t.Logf("%s: %s had not finished its check within the cap (machine load), and said so", what, tc.server)
		case tc.server == "typescript-language-server":
			t.Logf("LIMIT: %s: %s had not published %q within the quiet period (machine load)", what, tc.server, tc.undefined)
		default:
			t.Errorf("%s neither names %q nor says %s had not finished:\n%s", what, tc.undefined, tc.server, out)
		}
	}
	if outline := results[7].Content; !strings.Contains(outline, "perimeter") || !strings.Contains(outline, "area") {
		t.Errorf("the outline of the pending %s lacks the run's perimeter:\n%s", tc.lib, outline)
	}
	if rename := results[8].Content; !strings.Contains(rename, "Rename of perimeter to rim:") || !strings.Contains(rename, "in 2 files") || !strings.Contains(rename, "pending the user's review") {
		t.Errorf("the rename across %s and %s:\n%s", tc.lib, tc.use, rename)
	}
	wantLib := strings.Replace(libText, tc.addAfter, tc.addAfter+strings.ReplaceAll(tc.perimeter, "perimeter", "rim"), 1)
	wantUse := strings.Replace(tc.files[tc.use], tc.useFrom, strings.ReplaceAll(tc.useTo, "perimeter", "rim"), 1)
	if got := numberless(results[9].Content); got != wantLib {
		t.Errorf("the run's %s:\n%s\nwant:\n%s", tc.lib, got, wantLib)
	}
	if got := numberless(results[10].Content); got != wantUse {
		t.Errorf("the run's %s:\n%s\nwant:\n%s", tc.use, got, wantUse)
	}
	for name, text := range tc.files {
		if got, _ := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(name))); string(got) != text {
			t.Errorf("the user's %s changed while pending:\n%s", name, got)
		}
	}
}
