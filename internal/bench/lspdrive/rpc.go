package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// conn is a JSON-RPC connection over LSP's Content-Length framing. Requests
// from the server (workspace/configuration, window/workDoneProgress/create…)
// are answered with null so no server waits on the driver.
type conn struct {
	w       io.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int
	pending map[int]chan json.RawMessage
}

type message struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  json.RawMessage  `json:"error,omitempty"`
}

func newConn(w io.Writer, r io.Reader) *conn {
	c := &conn{w: w, pending: map[int]chan json.RawMessage{}}
	go c.read(bufio.NewReaderSize(r, 1<<20))
	return c
}

// read delivers each response to the request waiting for it, until the
// server's stdout closes; then every waiter gets nil.
func (c *conn) read(r *bufio.Reader) {
	defer func() {
		c.mu.Lock()
		for id, ch := range c.pending {
			close(ch)
			delete(c.pending, id)
		}
		c.mu.Unlock()
	}()
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(body, &m) != nil || m.ID == nil {
			continue // a notification (logs, diagnostics, progress)
		}
		if m.Method != "" {
			_ = c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
			continue
		}
		id, err := strconv.Atoi(string(*m.ID))
		if err != nil {
			continue
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- body
		}
	}
}

func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", v)
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func (c *conn) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

func (c *conn) notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and returns a channel that yields its response (an
// error response counts: it still orders the server's work), or is closed
// when the server goes away.
func (c *conn) call(method string, params any) (<-chan json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan json.RawMessage, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	return ch, c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}
