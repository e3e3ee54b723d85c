package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// The fake editor asks completions as VS Code and Neovim 0.12 do
// (textDocument/inlineCompletion at the cursor); the model is a
// scripted server speaking Ollama's /api/generate, OpenAI's
// /v1/completions or chat completions over HTTP.

const mainGo = "package main\n\nimport \"example.com/m/lib\"\n\nfunc main() {\n\tprintln(lib.Add(1, 2))\n}\n\nfunc add(a, b int) int {\n\treturn \n}\n"

// completionTree is a module whose main.go imports lib, beside an
// unrelated package, a .env and an ignored directory.
const completionTree = "-- go.mod --\nmodule example.com/m\n" +
	"-- main.go --\n" + mainGo +
	"-- lib/lib.go --\npackage lib\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n" +
	"-- other/other.go --\npackage other\n\nfunc UnrelatedMarker() {}\n" +
	"-- .env --\nAPI_KEY=sk-env-secret-123\n" +
	"-- .gitignore --\ngen/\n" +
	"-- gen/gen.go --\npackage gen\n\nconst IgnoredMarker = 1\n"

// completionEditor starts an editor over dir whose settings enable
// completions with ic, the agent's model at agentURL.
func completionEditor(t testing.TB, dir, agentURL string, ic map[string]any, opts ...func(*fake.Options)) *fake.Editor {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	o := fake.Options{Folders: []string{dir}, InitializationOptions: map[string]any{
		"provider": "openai", "baseUrl": agentURL, "model": "qwen2.5-coder:1.5b", "apiKey": testKey,
		"inlineCompletion": ic,
	}}
	for _, f := range opts {
		f(&o)
	}
	return fake.New(t, o)
}

// cursorAfter is the position just after the first occurrence of s.
func cursorAfter(t *testing.T, text, s string) protocol.Position {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q not in the text", s)
	}
	return fake.Position(text, i+len(s))
}

type completionList struct {
	Items []struct {
		InsertText string         `json:"insertText"`
		Range      protocol.Range `json:"range"`
	} `json:"items"`
}

func inlineParams(u uri.URI, pos protocol.Position) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": u}, "position": pos, "context": map[string]any{"triggerKind": 2}}
}

// askCompletion sends textDocument/inlineCompletion and returns the items' texts.
func askCompletion(t *testing.T, ed *fake.Editor, u uri.URI, pos protocol.Position) []string {
	t.Helper()
	var res json.RawMessage
	if err := ed.Call(protocol.MethodTextDocumentInlineCompletion, inlineParams(u, pos), &res); err != nil {
		t.Fatalf("inlineCompletion: %v", err)
	}
	var list completionList
	if err := json.Unmarshal(res, &list); err != nil || list.Items == nil {
		t.Fatalf("inlineCompletion answered %s (%v), want a list", res, err)
	}
	var out []string
	for _, it := range list.Items {
		if it.Range.Start != pos || it.Range.End != pos {
			t.Errorf("item range %+v, want the cursor %+v", it.Range, pos)
		}
		out = append(out, it.InsertText)
	}
	return out
}

func TestInlineCompletionAdvertised(t *testing.T) {
	dir := writeTree(t, completionTree)
	ed := completionEditor(t, dir, "http://127.0.0.1:9/v1", map[string]any{})
	if ed.InitializeResult.Capabilities.InlineCompletionProvider == nil || !strings.Contains(ed.Received(), `"inlineCompletionProvider":true`) {
		t.Fatalf("inlineCompletionProvider not advertised: %s", ed.Received())
	}
	// Off (the default): answered at once with no item, no model asked.
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	if got := askCompletion(t, ed, u, cursorAfter(t, mainGo, "\treturn ")); len(got) != 0 {
		t.Errorf("completions are off, got %q", got)
	}
}

// Ollama's /api/generate with a suffix: the text after the cursor is the
// suffix, the text before it ends the prompt, and the answer is trimmed
// where it runs into the suffix.
func TestInlineCompletionOllamaSuffix(t *testing.T) {
	dir := writeTree(t, completionTree)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "a + b\n}"}}})
	ed := completionEditor(t, dir, "http://127.0.0.1:9/v1", map[string]any{
		"enabled": true, "provider": "ollama", "baseUrl": model.OllamaURL(), "model": "qwen2.5-coder:1.5b"})
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	got := askCompletion(t, ed, u, cursorAfter(t, mainGo, "\treturn "))
	if len(got) != 1 || got[0] != "a + b" {
		t.Fatalf("completion %q, want [\"a + b\"]", got)
	}
	reqs := model.Requests()
	if len(reqs) != 1 || reqs[0].Format != agenttest.Ollama {
		t.Fatalf("model requests %+v, want one /api/generate", reqs)
	}
	r := reqs[0]
	if r.Suffix() != "\n}\n" || !strings.HasSuffix(r.Prompt(), "func add(a, b int) int {\n\treturn ") || r.Model() != "qwen2.5-coder:1.5b" || r.Stream() {
		t.Errorf("generate request: model %q stream %v suffix %q prompt\n%s", r.Model(), r.Stream(), r.Suffix(), r.Prompt())
	}
	if raw, _ := r.Body["raw"].(bool); raw {
		t.Error("suffix mode sent raw: Ollama would not apply the model's FIM template")
	}
}

// OpenAI-compatible /v1/completions: with fim "suffix" the suffix
// parameter, with a family's format its tokens in a raw prompt; the key
// is the agent's.
func TestInlineCompletionOpenAICompletions(t *testing.T) {
	dir := writeTree(t, completionTree)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "a + b"}, {Text: "a - b"}}})
	cfg := map[string]any{"enabled": true, "fim": "suffix"}
	ed := completionEditor(t, dir, model.URL(), cfg, func(o *fake.Options) {
		o.Configuration = map[string]any{"catbuddy": map[string]any{"inlineCompletion": cfg}}
	})
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	pos := cursorAfter(t, mainGo, "\treturn ")
	if got := askCompletion(t, ed, u, pos); len(got) != 1 || got[0] != "a + b" {
		t.Fatalf("completion %q", got)
	}
	r := model.Requests()[0]
	if r.Format != agenttest.OpenAICompletions || r.Suffix() != "\n}\n" || !strings.HasSuffix(r.Prompt(), "\treturn ") || r.APIKey() != testKey {
		t.Errorf("completions request: format %s suffix %q key %q prompt\n%s", r.Format, r.Suffix(), r.APIKey(), r.Prompt())
	}

	ed.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"catbuddy": map[string]any{
		"inlineCompletion": map[string]any{"fim": "qwen"}}}})
	if got := askCompletion(t, ed, u, pos); len(got) != 1 || got[0] != "a - b" {
		t.Fatalf("completion %q", got)
	}
	r = model.Requests()[1]
	if r.HasSuffix() || !strings.HasPrefix(r.Prompt(), "<|fim_prefix|>") || !strings.HasSuffix(r.Prompt(), "\treturn <|fim_suffix|>\n}\n<|fim_middle|>") {
		t.Errorf("qwen tokens: suffix sent %v, prompt\n%s", r.HasSuffix(), r.Prompt())
	}
}

// A model without FIM gets a chat request for the insertion only, and
// the answer's fence is dropped.
func TestInlineCompletionChat(t *testing.T) {
	dir := writeTree(t, completionTree)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "```go\nreturn a + b\n```"}}})
	ed := completionEditor(t, dir, model.URL(), map[string]any{"enabled": true, "fim": "chat"})
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	if got := askCompletion(t, ed, u, cursorAfter(t, mainGo, "\treturn ")); len(got) != 1 || got[0] != "a + b" {
		t.Fatalf("completion %q, want [\"a + b\"]", got)
	}
	r := model.Requests()[0]
	if r.Format != agenttest.OpenAI || !strings.Contains(r.System(), "only the text to insert") ||
		!strings.Contains(r.LastUserText(), "\treturn <CURSOR>\n}\n") {
		t.Errorf("chat request: %s\nsystem: %s\nuser: %s", r.Format, r.System(), r.LastUserText())
	}
}

// The file main.go imports is sent as context; an open file it does not
// import, never edited, is not.
func TestInlineCompletionImportedContext(t *testing.T) {
	dir := writeTree(t, completionTree)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "a + b"}}})
	ed := completionEditor(t, dir, model.URL(), map[string]any{"enabled": true, "fim": "suffix"})
	ed.OpenFile(filepath.Join(dir, "other", "other.go"))
	ed.OpenFile(filepath.Join(dir, "lib", "lib.go"))
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	askCompletion(t, ed, u, cursorAfter(t, mainGo, "\treturn "))
	prompt := model.Requests()[0].Prompt()
	if !strings.Contains(prompt, "// Path: lib/lib.go\n") || !strings.Contains(prompt, "// func Add(a, b int) int { return a + b }\n") {
		t.Errorf("the imported buffer is not in the prompt:\n%s", prompt)
	}
	if strings.Contains(prompt, "UnrelatedMarker") {
		t.Errorf("an unrelated buffer is in the prompt:\n%s", prompt)
	}
}

// An open .env and an open gitignored file are never completed, and
// never sent as context, not even edited last.
func TestInlineCompletionSecretsAndIgnored(t *testing.T) {
	dir := writeTree(t, completionTree)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "a + b"}}})
	ed := completionEditor(t, dir, model.URL(), map[string]any{"enabled": true, "fim": "suffix"})
	env := ed.OpenFile(filepath.Join(dir, ".env"))
	gen := ed.OpenFile(filepath.Join(dir, "gen", "gen.go"))
	ed.Replace(env, "API_KEY", "API_KEY_2")
	ed.Replace(gen, "IgnoredMarker", "IgnoredMarker2")
	if got := askCompletion(t, ed, env, cursorAfter(t, ed.Text(env), "API_KEY_2=")); len(got) != 0 {
		t.Errorf(".env completed: %q", got)
	}
	if got := askCompletion(t, ed, gen, cursorAfter(t, ed.Text(gen), "const ")); len(got) != 0 {
		t.Errorf("an ignored file completed: %q", got)
	}
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times for a secret or ignored file", n)
	}
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	askCompletion(t, ed, u, cursorAfter(t, mainGo, "\treturn "))
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	for _, leak := range []string{"sk-env-secret-123", "API_KEY", ".env", "IgnoredMarker", "gen.go"} {
		if bytes.Contains(reqs[0].Raw, []byte(leak)) {
			t.Errorf("the request carries %q:\n%s", leak, reqs[0].Raw)
		}
	}
}

// An untrusted project's inlineCompletion.baseUrl is never asked; once
// the user trusts the project it is.
func TestInlineCompletionUntrustedBaseURL(t *testing.T) {
	evil := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "a * b"}}})
	dir := writeTree(t, completionTree+"-- .catbuddy/config.json --\n"+
		`{"inlineCompletion":{"baseUrl":"`+evil.URL()+`","fim":"suffix"}}`+"\n")
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Text: "a + b"}}})
	a := &answerer{}
	ed := completionEditor(t, dir, model.URL(), map[string]any{"enabled": true, "fim": "suffix"}, func(o *fake.Options) { o.Answer = a.fn })
	ed.Await("the trust question", func() bool { return len(ed.Questions()) == 1 })
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	pos := cursorAfter(t, mainGo, "\treturn ")
	if got := askCompletion(t, ed, u, pos); len(got) != 1 || got[0] != "a + b" {
		t.Fatalf("completion %q", got)
	}
	if n := len(evil.Requests()); n != 0 {
		t.Fatalf("the untrusted project's endpoint got %d requests", n)
	}
	a.set("Trust")
	var st trustStatus
	if err := ed.ExecuteCommand(lsp.CmdTrustProject, nil, &st); err != nil || !st.Trusted {
		t.Fatalf("trustProject = %+v %v", st, err)
	}
	if got := askCompletion(t, ed, u, pos); len(got) != 1 || got[0] != "a * b" {
		t.Fatalf("trusted: completion %q, want the project's endpoint's", got)
	}
}

// rawCompletion sends a completion request with a string id, to watch
// its answer on the wire.
func rawCompletion(t *testing.T, ed *fake.Editor, id string, u uri.URI, pos protocol.Position) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": protocol.MethodTextDocumentInlineCompletion, "params": inlineParams(u, pos)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ed.WriteRaw(frame(string(body))); err != nil {
		t.Fatal(err)
	}
}

// awaitAnswer waits for the server's answer to id and returns it.
func awaitAnswer(t *testing.T, ed *fake.Editor, id string) map[string]json.RawMessage {
	t.Helper()
	var found map[string]json.RawMessage
	quoted := strconv.Quote(id)
	ed.Await("the answer to "+id, func() bool {
		for _, part := range strings.Split(ed.Received(), "Content-Length:") {
			if _, body, ok := strings.Cut(part, "\r\n\r\n"); ok {
				var m map[string]json.RawMessage
				if json.Unmarshal([]byte(body), &m) == nil && string(m["id"]) == quoted && m["method"] == nil {
					found = m
					return true
				}
			}
		}
		return false
	})
	return found
}

// A request cancelled with $/cancelRequest is answered RequestCancelled
// at once, and its model request is closed within a second.
func TestInlineCompletionCancelRequest(t *testing.T) {
	dir := writeTree(t, completionTree)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Hang: true}}})
	ed := completionEditor(t, dir, "http://127.0.0.1:9/v1", map[string]any{"enabled": true, "provider": "ollama", "baseUrl": model.OllamaURL()})
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	rawCompletion(t, ed, "ic-cancel", u, cursorAfter(t, mainGo, "\treturn "))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := model.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	if err := ed.WriteRaw(frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"ic-cancel"}}`)); err != nil {
		t.Fatal(err)
	}
	ans := awaitAnswer(t, ed, "ic-cancel")
	if !strings.Contains(string(ans["error"]), `"code":-32800`) {
		t.Errorf("answer %s, want RequestCancelled", ans["error"])
	}
	gone, err := model.WaitGone(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := gone.Sub(sent); d > time.Second {
		t.Errorf("the model request closed %v after the cancel, want within 1 s", d)
	}
}

// The next keystroke in the document answers a pending completion at
// once with no item, and closes its model request.
func TestInlineCompletionSupersededByKeystroke(t *testing.T) {
	dir := writeTree(t, completionTree)
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{{Hang: true}}})
	ed := completionEditor(t, dir, model.URL(), map[string]any{"enabled": true, "fim": "suffix"})
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	rawCompletion(t, ed, "ic-typed", u, cursorAfter(t, mainGo, "\treturn "))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := model.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	typed := time.Now()
	ed.Replace(u, "\treturn \n", "\treturn a\n")
	ans := awaitAnswer(t, ed, "ic-typed")
	if string(ans["result"]) != `{"items":[]}` {
		t.Errorf("answer %s %s, want an empty list", ans["result"], ans["error"])
	}
	gone, err := model.WaitGone(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := gone.Sub(typed); d > time.Second {
		t.Errorf("the model request closed %v after the keystroke, want within 1 s", d)
	}
}
