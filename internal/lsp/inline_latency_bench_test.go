package lsp_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

// p50 is the median of d in milliseconds.
func p50(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkInlineCompletionLatency: completions in the middle of an open
// 10 MB document, over the fake editor's pipe, answered at once by a
// scripted Ollama (/api/generate with suffix). Reported as medians:
// request-to-model, from the editor's request to the model server
// receiving its request (the prompt built: window, outline, context,
// settings and trust read); model-to-response, from the model server
// receiving it to the editor holding the answer (the scripted model's
// own answer, the HTTP response, trimming, the LSP answer). Target:
// each ≤ 5 ms.
func BenchmarkInlineCompletionLatency(b *testing.B) {
	dir := writeTree(b, completionTree)
	var mu sync.Mutex
	var arrived time.Time
	model := agenttest.NewServer(b, agenttest.Script{})
	model.DiscardRequests = true
	model.SetNext(func(int, agenttest.Request) agenttest.Turn { return agenttest.Turn{Text: "a + b"} })
	model.OnRequest = func(agenttest.Request) { mu.Lock(); arrived = time.Now(); mu.Unlock() }
	ed := completionEditor(b, dir, "http://127.0.0.1:9/v1", map[string]any{
		"enabled": true, "provider": "ollama", "baseUrl": model.OllamaURL(), "model": "qwen2.5-coder:1.5b"})
	var text strings.Builder
	for text.Len() < 10<<20 {
		text.WriteString("func f(a, b int) int {\n\treturn a * b // a line of a large file\n}\n\n")
	}
	doc := text.String()
	mid := strings.Index(doc[len(doc)/2:], "\treturn ") + len(doc)/2 + len("\treturn ")
	u := ed.OpenText(filepath.Join(dir, "big.go"), doc)
	pos := fake.Position(doc, mid)
	var toModel, toEditor []time.Duration
	for b.Loop() {
		t0 := time.Now()
		var res completionList
		if err := ed.Call(protocol.MethodTextDocumentInlineCompletion, inlineParams(u, pos), &res); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if len(res.Items) != 1 {
			b.Fatalf("answer %+v", res)
		}
		mu.Lock()
		t1 := arrived
		mu.Unlock()
		toModel, toEditor = append(toModel, t1.Sub(t0)), append(toEditor, t2.Sub(t1))
	}
	b.ReportMetric(p50(toModel), "request-to-model-ms")
	b.ReportMetric(p50(toEditor), "model-to-response-ms")
}

// BenchmarkInlineCompletionCancel: a completion whose model never
// answers, superseded by the next keystroke or cancelled with
// $/cancelRequest. Reported as medians: superseded-answer, from the
// keystroke to the editor holding the (empty) answer; superseded-closed
// and cancel-closed, from the keystroke or the cancel to the model
// server seeing its connection closed.
func BenchmarkInlineCompletionCancel(b *testing.B) {
	dir := writeTree(b, completionTree)
	model := agenttest.NewServer(b, agenttest.Script{})
	model.SetNext(func(int, agenttest.Request) agenttest.Turn { return agenttest.Turn{Hang: true} })
	ed := completionEditor(b, dir, "http://127.0.0.1:9/v1", map[string]any{
		"enabled": true, "provider": "ollama", "baseUrl": model.OllamaURL(), "model": "qwen2.5-coder:1.5b"})
	u := ed.OpenFile(filepath.Join(dir, "main.go"))
	pos := fake.Position(mainGo, strings.Index(mainGo, "\treturn ")+len("\treturn "))
	ctx := context.Background()
	var answered, closed, cancelClosed []time.Duration
	n := 0
	for i := 0; b.Loop(); i++ {
		done := make(chan error, 1)
		go func() { done <- ed.Call(protocol.MethodTextDocumentInlineCompletion, inlineParams(u, pos), nil) }()
		if _, err := model.WaitRequests(ctx, n+1); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		ed.Replace(u, "\treturn ", "\treturn ") // a keystroke that changes nothing
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		answered = append(answered, time.Since(t0))
		gone, err := model.WaitGone(ctx, n)
		if err != nil {
			b.Fatal(err)
		}
		closed = append(closed, gone.Sub(t0))
		n++

		cctx, cancel := context.WithCancel(ctx)
		go func() {
			done <- ed.CallCtx(cctx, protocol.MethodTextDocumentInlineCompletion, inlineParams(u, pos), nil)
		}()
		if _, err := model.WaitRequests(ctx, n+1); err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		cancel() // sends $/cancelRequest
		<-done
		if gone, err = model.WaitGone(ctx, n); err != nil {
			b.Fatal(err)
		}
		cancelClosed = append(cancelClosed, gone.Sub(t0))
		n++
	}
	b.ReportMetric(p50(answered), "superseded-answer-ms")
	b.ReportMetric(p50(closed), "superseded-closed-ms")
	b.ReportMetric(p50(cancelClosed), "cancel-closed-ms")
}
