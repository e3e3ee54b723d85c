package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// These tests drive the real binary over a pipe with what a broken or
// hostile client might send: the server must never corrupt a buffer and
// never go silent.

// TestWireBadPositions: a didChange whose range is negative, a string or
// a float marks the buffer out of sync instead of replacing it; a
// full-text change heals it. A range past the last line clamps to the
// end of the document.
func TestWireBadPositions(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\non disk\n")
	p := startWire(t, dir)
	u := string(fileuri.FromPath(filepath.Join(dir, "a.txt")))
	for i, r := range []string{
		`{"start":{"line":-1,"character":0},"end":{"line":0,"character":2}}`,
		`{"start":{"line":"0","character":0},"end":{"line":0,"character":2}}`,
		`{"start":{"line":0.5,"character":0},"end":{"line":0,"character":2}}`,
	} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"plaintext","version":1,"text":"one\ntwo\n"}}}`, u))
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":2},"contentChanges":[{"range":%s,"text":"WHOLE BUFFER"}]}}`, u, r))
		out, isErr := p.readTool(fmt.Sprintf("read%d", i), "a.txt")
		if !isErr || !strings.Contains(out, "out of sync") || strings.Contains(out, "WHOLE BUFFER") {
			t.Errorf("range %s: read_file said %q (error=%v), want out of sync", r, out, isErr)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":3},"contentChanges":[{"text":"healed %d\n"}]}}`, u, i))
		if out, isErr := p.readTool(fmt.Sprintf("heal%d", i), "a.txt"); isErr || !strings.Contains(out, fmt.Sprintf("healed %d", i)) {
			t.Errorf("range %s: after a full-text change read_file said %q", r, out)
		}
	}
	p.awaitLog("out of sync", 1)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":4},"contentChanges":[{"range":{"start":{"line":40,"character":0},"end":{"line":40,"character":0}},"text":"tail\n"}]}}`, u))
	if out, isErr := p.readTool("clamped", "a.txt"); isErr || !strings.Contains(out, "healed 2\n2\ttail") {
		t.Errorf("a change at line 40 of a 1-line buffer: read_file said %q (error=%v), want it appended", out, isErr)
	}
}

// TestWireWrongContentLength: a frame declaring too many bytes, one
// declaring too few, and a header block without Content-Length followed by
// a body: each is skipped (with a log line) and the requests after it are
// answered.
func TestWireWrongContentLength(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nx\n")
	p := startWire(t, dir)
	note := `{"jsonrpc":"2.0","method":"$/nothing","params":{"padding":"0123456789"}}`

	// Too large: the frame swallows the next one, which is still served.
	p.write([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(note)+500, note)))
	p.ping("after-too-large")

	// Too small: the rest of the body is garbage before the next header.
	p.write([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(note)-20, note)))
	p.ping("after-too-small")

	// No Content-Length at all, then a body.
	p.write([]byte("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + note))
	p.ping("after-no-length")

	// Garbage between frames, and a header line with a garbage prefix.
	p.write([]byte("\x00\xffnot a header at all\r\n\r\nxyzContent-Length: 2\r\n\r\n{}"))
	p.ping("after-garbage")

	p.awaitLog("not an LSP frame", 3)
}

// TestWireLongHeaderLine: a 64 MB header line without a newline is cut at
// 8 KiB; the server's memory does not grow with it and it goes on.
func TestWireLongHeaderLine(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nx\n")
	p := startWire(t, dir)
	p.ping("before")
	before := p.rssKB()
	chunk := bytes.Repeat([]byte("X"), 1<<20)
	for range 64 {
		p.write(chunk)
	}
	p.write([]byte("\r\n\r\n"))
	p.ping("after")
	after := p.rssKB()
	t.Logf("RSS before %d KiB, after a 64 MB header line %d KiB", before, after)
	if after-before > 16<<10 {
		t.Errorf("RSS grew by %d KiB for a 64 MB header line", after-before)
	}
	p.awaitLog("header line longer than 8192 bytes", 1)
}

// TestWireLargeFrameMemory: after a 200 MB frame the server's RSS comes
// back within 2× of what it was before.
func TestWireLargeFrameMemory(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nx\n")
	p := startWire(t, dir)
	p.ping("before")
	before := p.rssKB()
	const size = 200 << 20
	prefix := `{"jsonrpc":"2.0","method":"$/bulk","params":{"data":"`
	suffix := `"}}`
	p.write([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(prefix)+size+len(suffix), prefix)))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range size >> 20 {
		p.write(chunk)
	}
	p.write([]byte(suffix))
	p.ping("after")
	// The memory is handed back in the background once the next frame has
	// been read; wait for it on the condition, not a fixed time.
	deadline := time.Now().Add(20 * time.Second)
	after := p.rssKB()
	for i := 0; after > 2*before && time.Now().Before(deadline); i++ {
		p.ping(fmt.Sprintf("settle%d", i))
		after = p.rssKB()
	}
	t.Logf("RSS before %d KiB, after a 200 MB frame %d KiB (%.2f×)", before, after, float64(after)/float64(before))
	if after > 2*before {
		t.Errorf("RSS after a 200 MB frame is %d KiB, more than 2× the %d KiB before", after, before)
	}
}

// TestWireInvalidUTF8InErrors: error replies that echo the client's
// bytes (an unknown method's name, a string id) are valid UTF-8.
func TestWireInvalidUTF8InErrors(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nx\n")
	p := startWire(t, dir)
	p.write(frame("{\"jsonrpc\":\"2.0\",\"id\":\"bad\xff\",\"method\":\"no/such\xfe\xc3method\"}"))
	p.write(frame("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"workspace/executeCommand\",\"params\":{\"command\":\"catbuddy.\xff\xfe\"}}"))
	_, raw := p.awaitFrame("the error for the unknown method", func(m map[string]json.RawMessage, raw []byte) bool {
		return m["error"] != nil && bytes.Contains(raw, []byte("no/such"))
	})
	if !utf8.Valid(raw) {
		t.Errorf("error reply is not valid UTF-8: %q", raw)
	}
	_, raw = p.awaitFrame("the error for the unknown command", func(m map[string]json.RawMessage, raw []byte) bool {
		return string(m["id"]) == "7"
	})
	if !utf8.Valid(raw) {
		t.Errorf("error reply is not valid UTF-8: %q", raw)
	}
}

// TestWireGivesUpLoudly: a peer that sends nothing but unreadable frames
// makes the server exit non-zero with a log line saying so, so that the
// editor restarts it; it is never silently deaf.
func TestWireGivesUpLoudly(t *testing.T) {
	dir := writeTree(t, "-- a.txt --\nx\n")
	p := startWire(t, dir)
	p.write(bytes.Repeat(frame("not json"), 101))
	if code := p.wait(20 * time.Second); code == 0 {
		t.Errorf("exit code 0 after a stream of garbage, want non-zero")
	}
	if log := p.stderr.String(); !strings.Contains(log, "the editor should restart the server") {
		t.Errorf("no log line says why the server exited:\n%s", log)
	}
}
