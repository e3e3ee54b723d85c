package lsp_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// Next-edit suggestions: the fake editor types, the server asks the
// scripted model (chat completions over HTTP) after the pause, and
// offers the answer as a pseudo-run's pending hunk (a client with the
// pending UI) or as the next inline completion at the cursor (a plain
// client).

const nextGo = "package main\n\nfunc main() {\n\ttotal := 0\n\tfor i := 0; i < 3; i++ {\n\t\ttotal += i\n\t}\n\tprintln(total)\n\tprintln(add(1, 2))\n}\n\nfunc add(a, b int) int { return a + b }\n"

const nextTree = "-- go.mod --\nmodule example.com/m\n" +
	"-- main.go --\n" + nextGo +
	"-- .env --\nAPI_KEY=sk-env-secret-123\n" +
	"-- .gitignore --\ngen/\n" +
	"-- gen/gen.go --\npackage gen\n\nconst IgnoredMarker = 1\n"

// logRecorder is a slog.Handler the test reads: the server's log, to
// wait for what it did without a sleep.
type logRecorder struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{changed: make(chan struct{})} }

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf.WriteString(rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		r.buf.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	})
	r.buf.WriteString("\n")
	close(r.changed)
	r.changed = make(chan struct{})
	return nil
}

// await waits until a log line holds every one of parts.
func (r *logRecorder) await(t *testing.T, parts ...string) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ch := r.changed
		found := false
		for _, l := range strings.Split(r.buf.String(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(l, p)
			}
			found = found || all
		}
		r.mu.Unlock()
		if found {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("no log line with %q:\n%s", parts, r.buf.String())
		}
	}
}

// renamer is a scripted model that makes the next edit the way a model
// would: in the region it was sent, it replaces the first old with new.
func renamer(model *agenttest.Server, old, new string) {
	model.SetNext(func(n int, req agenttest.Request) agenttest.Turn {
		msg := req.LastUserText()
		i := strings.LastIndex(msg, "<region>\n")
		j := strings.LastIndex(msg, "</region>")
		if i < 0 || j < i {
			return agenttest.Turn{Text: "no region in the request"}
		}
		region := msg[i+len("<region>\n") : j]
		return agenttest.Turn{Text: "<region>\n" + strings.Replace(region, old, new, 1) + "</region>"}
	})
}

// nextEditEditor starts an editor over dir with next edits on (ic), the
// agent's model at modelURL, its server's log in rec.
func nextEditEditor(t *testing.T, dir, modelURL string, ic map[string]any, rec *logRecorder, opts ...func(*fake.Options)) *fake.Editor {
	t.Helper()
	return completionEditor(t, dir, modelURL, ic, append([]func(*fake.Options){func(o *fake.Options) {
		o.Server.Logger = slog.New(rec)
	}}, opts...)...)
}

func withPendingUI(o *fake.Options) { o.PendingChanges = true }

func withInlineCompletion(o *fake.Options) {
	o.Capabilities = func(c *protocol.ClientCapabilities) {
		if c.TextDocument == nil {
			c.TextDocument = &protocol.TextDocumentClientCapabilities{}
		}
		c.TextDocument.InlineCompletion = &protocol.InlineCompletionClientCapabilities{}
	}
}

// awaitNextEdit waits for a next edit's pending hunk and returns its run
// and the hunk.
func awaitNextEdit(t *testing.T, ed *fake.Editor) (string, lsp.PendingHunk) {
	t.Helper()
	var id string
	var h lsp.PendingHunk
	ed.Await("a next edit in catbuddy/pendingChanges", func() bool {
		for _, p := range ed.PendingNotes() {
			if strings.HasPrefix(p.RunID, "nes-") && len(p.Files) == 1 && len(p.Files[0].Hunks) == 1 {
				id, h = p.RunID, p.Files[0].Hunks[0]
				return true
			}
		}
		return false
	})
	return id, h
}

// After the user renames one use of a variable, the next use is
// renamed: offered as a pending hunk, kept exactly with catbuddy.keep.
func TestNextEditRenamesNextUse(t *testing.T) {
	dir := writeTree(t, nextTree)
	model := agenttest.NewServer(t, agenttest.Script{})
	renamer(model, "total", "sum")
	rec := newLogRecorder()
	ed := nextEditEditor(t, dir, model.URL(), map[string]any{"enabled": true}, rec, withPendingUI)
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	ed.Replace(u, "\ttotal := 0", "\tsum := 0")

	id, h := awaitNextEdit(t, ed)
	if h.OldText != "\t\ttotal += i\n" || h.NewText != "\t\tsum += i\n" ||
		h.Range != (protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 6}}) {
		t.Fatalf("next edit %s: %+v, want line 6 renamed", id, h)
	}
	r := model.Requests()[0]
	if r.Format != agenttest.OpenAI || !strings.Contains(r.LastUserText(), "-\ttotal := 0\n+\tsum := 0\n") ||
		!strings.Contains(r.System(), "ONE next edit") {
		t.Errorf("the request does not carry the user's edit:\nsystem: %s\nuser: %s", r.System(), r.LastUserText())
	}

	var res lsp.KeepResult
	if err := ed.ExecuteCommand(lsp.CmdKeep, []any{map[string]any{"runId": id}}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0] != h.ID || len(res.Left) != 0 {
		t.Fatalf("keep = %+v, want the hunk kept", res)
	}
	want := strings.Replace(strings.Replace(nextGo, "\ttotal := 0", "\tsum := 0", 1), "\t\ttotal += i", "\t\tsum += i", 1)
	if got := ed.Text(u); got != want {
		t.Errorf("buffer after keep:\n%s\nwant:\n%s", got, want)
	}
	ed.AwaitPending(id, "the kept next edit cleared", func(f []lsp.PendingFile) bool { return len(f) == 0 })
}

// A keystroke before the model answers aborts its request (the scripted
// server sees the connection close); a keystroke after a suggestion was
// offered withdraws it, and keeping it then is an error.
func TestNextEditSupersededByKeystroke(t *testing.T) {
	dir := writeTree(t, nextTree)
	model := agenttest.NewServer(t, agenttest.Script{})
	stall := make(chan struct{})
	model.SetNext(func(n int, req agenttest.Request) agenttest.Turn {
		if n == 0 {
			close(stall)
			return agenttest.Turn{Stall: true}
		}
		msg := req.LastUserText()
		region := msg[strings.LastIndex(msg, "<region>\n")+len("<region>\n") : strings.LastIndex(msg, "</region>")]
		return agenttest.Turn{Text: "<region>\n" + strings.Replace(region, "total", "sum", 1) + "</region>"}
	})
	rec := newLogRecorder()
	ed := nextEditEditor(t, dir, model.URL(), map[string]any{"enabled": true}, rec, withPendingUI)
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	ed.Replace(u, "\ttotal := 0", "\tsum := 0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case <-stall:
	case <-ctx.Done():
		t.Fatal("no next-edit request after the pause")
	}
	typed := time.Now()
	ed.Replace(u, "println(total)", "println(total )")
	gone, err := model.WaitGone(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := gone.Sub(typed); d > time.Second {
		t.Errorf("the model request closed %v after the keystroke, want within 1 s", d)
	}

	// The second pause's suggestion is offered; the next keystroke withdraws it.
	id, _ := awaitNextEdit(t, ed)
	ed.Replace(u, "println(total )", "println(total)")
	ed.AwaitPending(id, "the next edit withdrawn", func(f []lsp.PendingFile) bool { return len(f) == 0 })
	var res lsp.KeepResult
	if err := ed.ExecuteCommand(lsp.CmdKeep, []any{map[string]any{"runId": id}}, &res); err == nil || !strings.Contains(err.Error(), "no longer pending") {
		t.Errorf("keep of a withdrawn next edit = %+v, %v; want an error", res, err)
	}
}

// A plain client (inline completions, no pending UI) gets the next edit
// as the item of its next inline completion at the cursor, when it
// inserts there; the model is not asked again.
func TestNextEditAsInlineCompletion(t *testing.T) {
	dir := writeTree(t, nextTree)
	model := agenttest.NewServer(t, agenttest.Script{})
	renamer(model, "add(1, 2)", "add(1, 2, 3)")
	rec := newLogRecorder()
	ed := nextEditEditor(t, dir, model.URL(), map[string]any{"enabled": false, "nextEdit": true}, rec, withInlineCompletion)
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	ed.Replace(u, "func add(a, b int)", "func add(a, b, c int)")
	rec.await(t, "next edit", "outcome=offered")
	pos := cursorAfter(t, ed.Text(u), "println(add(1, 2")
	if got := askCompletion(t, ed, u, pos); len(got) != 1 || got[0] != ", 3" {
		t.Fatalf("inline completion %q, want the next edit's insertion [\", 3\"]", got)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model requests, want the next edit's only", n)
	}
	if n := len(ed.PendingNotes()); n != 0 {
		t.Errorf("a plain client got %d catbuddy/pendingChanges", n)
	}
	// Taken: the same request again asks nothing (completions are off).
	if got := askCompletion(t, ed, u, pos); len(got) != 0 {
		t.Errorf("the next edit was answered twice: %q", got)
	}
}

// Secrets and ignored files are never sent: an edit there asks nothing,
// and an edit in main.go sends neither as context.
func TestNextEditSecretsAndIgnored(t *testing.T) {
	dir := writeTree(t, nextTree)
	model := agenttest.NewServer(t, agenttest.Script{})
	renamer(model, "total", "sum")
	rec := newLogRecorder()
	ed := nextEditEditor(t, dir, model.URL(), map[string]any{"enabled": true}, rec, withPendingUI)
	env := ed.OpenFile(filepath.Join(dir, ".env"))
	gen := ed.OpenFile(filepath.Join(dir, "gen", "gen.go"))
	ed.Replace(env, "API_KEY", "API_KEY_2")
	rec.await(t, "next edit", ".env", "outcome="+"the file is a secret or ignored")
	ed.Replace(gen, "IgnoredMarker", "IgnoredMarker2")
	rec.await(t, "next edit", "gen.go", "outcome="+"the file is a secret or ignored")
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times for a secret or ignored file", n)
	}
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	ed.Replace(u, "\ttotal := 0", "\tsum := 0")
	awaitNextEdit(t, ed)
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

// Off by default, and off with nextEdit false: an edit and its pause ask
// the model nothing. The window waited is four pauses (250 ms each).
func TestNextEditOff(t *testing.T) {
	for name, ic := range map[string]map[string]any{
		"default":  {},
		"disabled": {"enabled": true, "nextEdit": false},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, nextTree)
			model := agenttest.NewServer(t, agenttest.Script{})
			renamer(model, "total", "sum")
			rec := newLogRecorder()
			ed := nextEditEditor(t, dir, model.URL(), ic, rec, withPendingUI)
			u := ed.OpenFile(filepath.Join(dir, "main.go"))
			ed.Replace(u, "\ttotal := 0", "\tsum := 0")
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if _, err := model.WaitRequests(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("next edits are off, yet the model was asked: %v %+v", err, model.Requests())
			}
			if notes := ed.PendingNotes(); len(notes) != 0 {
				t.Errorf("pending notes while off: %+v", notes)
			}
		})
	}
}

// A next edit the user discarded is not offered again when the model,
// asked after the next pause, answers the same.
func TestNextEditDiscardedIsNotOfferedAgain(t *testing.T) {
	dir := writeTree(t, nextTree)
	model := agenttest.NewServer(t, agenttest.Script{})
	renamer(model, "total", "sum")
	rec := newLogRecorder()
	ed := nextEditEditor(t, dir, model.URL(), map[string]any{"enabled": true}, rec, withPendingUI)
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	ed.Replace(u, "\ttotal := 0", "\tsum := 0")
	id, h := awaitNextEdit(t, ed)
	var res lsp.DiscardResult
	if err := ed.ExecuteCommand(lsp.CmdDiscard, []any{map[string]any{"runId": id}}, &res); err != nil || len(res.Discarded) != 1 {
		t.Fatalf("discard = %+v, %v", res, err)
	}
	ed.AwaitPending(id, "the discarded next edit cleared", func(f []lsp.PendingFile) bool { return len(f) == 0 })

	ed.Replace(u, "println(add(1, 2))", "println(add(1, 3))")
	rec.await(t, "next edit not offered again")
	for _, p := range ed.PendingNotes() {
		if p.RunID != id && strings.HasPrefix(p.RunID, "nes-") && len(p.Files) > 0 && p.Files[0].Hunks[0].NewText == h.NewText {
			t.Errorf("the discarded next edit came back as %s: %+v", p.RunID, p.Files[0].Hunks[0])
		}
	}
}
