package shell

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
)

// Output keeps the first and last bytes of a stream and counts what
// it drops in between, so a command's output is bounded in memory while
// its start (the command's first complaint) and end (the summary, the
// last error) both survive. Terminal escape sequences (colours) are
// dropped as they arrive, so they cost none of the budget.
type Output struct {
	mu    sync.Mutex
	esc   escapeFilter
	buf   []byte // p without escapes, reused between writes
	max   int
	head  []byte
	tail  []byte // ring buffer of at most max-len(head) bytes
	start int    // index of the oldest byte in tail once it is full
	total int64

	// A watch's reports (see Watch.Attach): lines that start with
	// marker go to report, not to the output; held are bytes kept back
	// that may be the start of one.
	marker string
	report func(string)
	held   []byte
}

// extract sends each line that begins with marker (a newline, then a
// nonce) to report instead of keeping it, its leading newline and
// trailing newline included.
func (h *Output) extract(marker string, report func(string)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.marker, h.report = marker, report
}

// take returns what of p is output once the reports are taken out,
// keeping back in h.held what may still turn out to be one.
func (h *Output) take(p []byte) []byte {
	if h.marker == "" {
		return p
	}
	data := append(h.held, p...)
	h.held = nil
	var out []byte
	for {
		i := bytes.Index(data, []byte(h.marker))
		if i < 0 {
			break
		}
		out = append(out, data[:i]...)
		rest := data[i+len(h.marker):]
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			h.held = append([]byte(nil), data[i:]...)
			return out
		}
		h.report(string(rest[:j]))
		data = rest[j+1:]
	}
	// A tail of data that begins the marker waits for the next write.
	for k := min(len(h.marker)-1, len(data)); k > 0; k-- {
		if bytes.HasSuffix(data, []byte(h.marker[:k])) {
			h.held = append([]byte(nil), data[len(data)-k:]...)
			data = data[:len(data)-k]
			break
		}
	}
	return append(out, data...)
}

// NewOutput keeps at most max bytes (at least 64).
func NewOutput(max int) *Output {
	if max < 64 {
		max = 64
	}
	return &Output{max: max}
}

// Write never fails, so the command never blocks on a full pipe.
func (h *Output) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	h.buf = h.esc.filter(h.buf[:0], p)
	p = h.take(h.buf)
	h.keep(p)
	return n, nil
}

// keep adds p to the head, then the tail ring.
func (h *Output) keep(p []byte) {
	h.total += int64(len(p))
	headCap := h.max / 2
	if len(h.head) < headCap {
		k := min(headCap-len(h.head), len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	tailCap := h.max - headCap
	for len(p) > 0 {
		if len(h.tail) < tailCap {
			k := min(tailCap-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			continue
		}
		// Full: keep only the newest tailCap bytes of p, overwriting
		// the oldest bytes of the ring.
		if len(p) > tailCap {
			p = p[len(p)-tailCap:]
		}
		for _, b := range p {
			h.tail[h.start] = b
			h.start = (h.start + 1) % tailCap
		}
		p = nil
	}
}

// String returns the kept output, with a marker giving the number of
// bytes elided from the middle. Cut points are made valid UTF-8.
func (h *Output) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.held) > 0 && !bytes.HasPrefix(h.held, []byte(h.marker)) {
		// The stream ended on what only began like a report.
		held := h.held
		h.held = nil
		h.keep(held)
	}
	tail := append(append([]byte(nil), h.tail[h.start:]...), h.tail[:h.start]...)
	kept := int64(len(h.head) + len(tail))
	if kept == h.total {
		return string(h.head) + string(tail)
	}
	var b strings.Builder
	b.WriteString(strings.ToValidUTF8(string(h.head), ""))
	fmt.Fprintf(&b, "\n… [%d bytes of output elided] …\n", h.total-kept)
	b.WriteString(strings.ToValidUTF8(string(tail), ""))
	return b.String()
}

// Total is the number of bytes written, escape sequences not counted.
func (h *Output) Total() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}
