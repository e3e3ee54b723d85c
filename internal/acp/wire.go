package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// maxLine is the longest message passed on: the SDK's reader gives up
// (and closes the connection) on a longer line, so a longer one is
// answered with an error here and dropped instead.
const maxLine = 10 << 20

// wire sits between the client's byte streams and the SDK's connection.
// The SDK logs and skips a line it cannot parse and ignores an answer to
// a request it never sent; JSON-RPC wants the sender told. So wire
// answers those itself, with an error whose id is null (a response to a
// response, or to garbage, has no request id to carry), and passes every
// well-formed message through untouched.
type wire struct {
	out io.Writer
	log *slog.Logger

	mu      sync.Mutex // serialises writes and guards pending
	pending map[string]bool
}

// newWire returns the reader and writer the SDK connection should use
// in place of in and out, and start, which lets the client's messages
// through. The SDK's connection starts reading at once; calling start
// only once the agent is fully set up (its connection field, the SDK's
// logger) makes that setup happen before every handler the messages
// start, for the memory model as for the reader.
func newWire(in io.Reader, out io.Writer, log *slog.Logger) (r io.Reader, wr io.Writer, start func()) {
	w := &wire{out: out, log: log, pending: map[string]bool{}}
	pr, pw := io.Pipe()
	return pr, w, func() { go w.filter(in, pw) }
}

// envelope is the part of a message wire looks at.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Write implements io.Writer for the SDK, which writes one whole message
// per call. The ids of the agent's own requests are noted, so that an
// answer can be told from a stray one.
func (w *wire) Write(p []byte) (int, error) {
	var e envelope
	w.mu.Lock()
	defer w.mu.Unlock()
	if json.Unmarshal(p, &e) == nil && e.Method != "" && len(e.ID) > 0 {
		w.pending[idKey(e.ID)] = true
	}
	return w.out.Write(p)
}

// filter copies in to the SDK line by line, answering what it must not
// see. It closes dst when in ends.
func (w *wire) filter(in io.Reader, dst *io.PipeWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			w.reject(-32600, "Invalid request", "message longer than 10 MB")
		} else if len(bytes.TrimSpace(line)) > 0 && w.admit(line) {
			if _, werr := dst.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				w.log.Warn("acp: reading from the client", "error", err)
			}
			dst.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line without its newline; past maxLine it discards
// the rest of the line and reports tooLong.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine+1 {
			tooLong, line = true, line[:0]
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// admit reports whether line goes on to the SDK, answering it otherwise.
func (w *wire) admit(line []byte) bool {
	trimmed := bytes.TrimSpace(line)
	if !json.Valid(trimmed) {
		w.log.Warn("acp: not JSON", "line", truncate(string(trimmed), 200))
		w.reject(-32700, "Parse error", "the line is not JSON")
		return false
	}
	if trimmed[0] == '[' {
		w.reject(-32600, "Invalid request", "batches are not supported: send one message per line")
		return false
	}
	var e envelope
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &e) != nil {
		w.reject(-32600, "Invalid request", "a message is a JSON object")
		return false
	}
	switch {
	case e.JSONRPC != "2.0":
		w.reject(-32600, "Invalid request", `"jsonrpc" must be "2.0"`)
		return false
	case e.Method == "" && len(e.ID) == 0:
		w.reject(-32600, "Invalid request", "neither a request (method) nor a response (id)")
		return false
	case e.Method == "":
		k := idKey(e.ID)
		w.mu.Lock()
		known := w.pending[k]
		delete(w.pending, k)
		w.mu.Unlock()
		if !known {
			w.log.Warn("acp: answer to no request", "id", k)
			w.reject(-32600, "Invalid request", "no request with id "+k+" is waiting for an answer")
			return false
		}
	}
	return true
}

// reject sends an error response with a null id.
func (w *wire) reject(code int, message, detail string) {
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": message, "data": map[string]string{"error": detail}},
	})
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.out.Write(append(b, '\n'))
}

// idKey is a request id as a map key: its JSON text, so 7 and "7" differ
// as they do on the wire.
func idKey(raw json.RawMessage) string { return string(bytes.TrimSpace(raw)) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
