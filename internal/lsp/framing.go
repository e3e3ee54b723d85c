package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
)

// Limits of the frame reader. jsonrpc2 v1.0.1 (pinned) reads header lines
// with an unbounded ReadBytes, allocates the declared body at once, keeps
// its largest body buffer for the whole session and ends the connection
// on the first malformed header. cb-ls reads frames itself and hands
// jsonrpc2 only the decoded messages.
const (
	// maxHeaderLine bounds one header line; real ones are ~25 bytes.
	maxHeaderLine = 8 << 10
	// maxHeaderBlock bounds the whole header block.
	maxHeaderBlock = 32 << 10
	// maxFrameBody is jsonrpc2's own cap on Content-Length (1 GiB).
	maxFrameBody = 1 << 30
	// maxSkip bounds the garbage skipped while looking for the next
	// header: beyond the largest body a frame may declare, the peer is
	// not speaking LSP.
	maxSkip = maxFrameBody
	// windowSize is the read window; it holds any header block whole.
	windowSize = 64 << 10
	// keepBody is the largest body buffer kept between frames. A larger
	// one is dropped at the next read, and one above releaseBody is
	// handed back to the operating system, so one huge message does not
	// pin its memory for the rest of the session.
	keepBody    = 1 << 20
	releaseBody = 16 << 20
	// maxSplitChecks bounds the JSON validations spent per frame looking
	// for a next header inside a body whose Content-Length was too large.
	maxSplitChecks = 4
)

// contentLength is the header every LSP client writes; resync looks for it
// case-insensitively, the in-body check exactly as clients spell it.
const contentLength = "Content-Length:"

// errFraming is wrapped by every framing error the reader recovered from.
var errFraming = errors.New("LSP framing error")

// frameReader reads LSP base-protocol frames from src. On a framing error
// (a header line or block too long, a field that is not "Name: value", a
// missing or bad Content-Length) it skips to the next "Content-Length:"
// and goes on; Recovered reports what it skipped. It is not safe for
// concurrent use: the connection's read loop owns it.
type frameReader struct {
	src io.Reader
	// buf[r:w] holds bytes read but not consumed. It is windowSize long
	// except while it holds bytes pushed back from a body.
	buf  []byte
	r, w int
	eof  error // the error src returned, once it has

	body      []byte // reused body buffer, at most keepBody between frames
	lastLarge int    // size of the previous frame's body when it was large

	// recovered collects the framing errors skipped during the last Next.
	recovered []error
	skipped   int // garbage bytes skipped since the last good frame
}

func newFrameReader(src io.Reader) *frameReader {
	return &frameReader{src: src, buf: make([]byte, windowSize)}
}

// Recovered returns the framing errors skipped by the last Next, each
// saying what was wrong and how many bytes were skipped.
func (f *frameReader) Recovered() []error { return f.recovered }

// Next returns the body of the next frame and the number of wire bytes it
// took. The body is valid until the next call. It returns io.EOF at a
// clean end of input, io.ErrUnexpectedEOF inside a frame, and an error
// wrapping errFraming when more than maxSkip bytes of garbage came without
// a header.
func (f *frameReader) Next() ([]byte, int64, error) {
	f.recovered = f.recovered[:0]
	f.releaseLarge()
	if len(f.buf) > windowSize && f.r == f.w {
		f.buf, f.r, f.w = make([]byte, windowSize), 0, 0
	}
	for {
		length, hdr, err := f.header()
		if err == nil {
			body, n, err := f.readBody(length)
			if err != nil {
				return nil, 0, err
			}
			f.skipped = 0
			return body, int64(hdr) + int64(n), nil
		}
		if !errors.Is(err, errFraming) {
			return nil, 0, err
		}
		n, serr := f.resync(1)
		f.recovered = append(f.recovered, fmt.Errorf("%w; skipped %d bytes to the next %q", err, n, contentLength))
		if serr != nil {
			return nil, 0, serr
		}
	}
}

// releaseLarge drops the previous frame's body buffer when it was large.
// The message decoded from it may still be in use; the garbage collector
// keeps it alive until then.
func (f *frameReader) releaseLarge() {
	if f.lastLarge == 0 {
		return
	}
	release := f.lastLarge > releaseBody
	f.body, f.lastLarge = nil, 0
	if release {
		// The scavenger would return the pages slowly; an editor session
		// that once received a 200 MB message should not look 200 MB big.
		go debug.FreeOSMemory()
	}
}

// fill reads more input into the window, compacting it first. It returns
// false when src has ended or failed (f.eof says which).
func (f *frameReader) fill() bool {
	if f.eof != nil {
		return false
	}
	if f.r > 0 {
		f.w = copy(f.buf, f.buf[f.r:f.w])
		f.r = 0
	}
	if f.w == len(f.buf) {
		return true // full: the caller decides what that means
	}
	n, err := f.src.Read(f.buf[f.w:])
	f.w += n
	if err != nil {
		f.eof = err
	}
	return n > 0 || err == nil
}

// header parses one header block at the window's start without consuming
// it until it is complete, so that on a framing error resync can look for
// the next header from the block's second byte on.
func (f *frameReader) header() (length, consumed int, err error) {
	for f.r == f.w {
		if !f.fill() {
			return 0, 0, f.endErr(0)
		}
	}
	off := 0 // parsed bytes of the block, from f.r
	have := false
	for {
		line, ok, err := f.peekLine(off)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			return 0, 0, f.endErr(f.w - f.r)
		}
		off += len(line)
		if off > maxHeaderBlock {
			return 0, 0, fmt.Errorf("%w: header block longer than %d bytes", errFraming, maxHeaderBlock)
		}
		if isBlank(line) {
			break
		}
		name, value, ok := headerField(line)
		if !ok {
			return 0, 0, fmt.Errorf("%w: header line %q is not \"Name: value\"", errFraming, clip(line))
		}
		if !asciiFold(name, "content-length") {
			continue
		}
		n, ok := parseLength(value)
		if !ok {
			return 0, 0, fmt.Errorf("%w: bad Content-Length %q (1 to %d)", errFraming, clip(value), maxFrameBody)
		}
		length, have = n, true
	}
	if !have {
		return 0, 0, fmt.Errorf("%w: header block without Content-Length", errFraming)
	}
	f.r += off
	return length, off, nil
}

// peekLine returns the line starting off bytes into the window, reading
// more as needed. ok is false when the input ended first.
func (f *frameReader) peekLine(off int) (line []byte, ok bool, err error) {
	scanned := 0
	for {
		start := f.r + off
		if k := bytes.IndexByte(f.buf[start+scanned:f.w], '\n'); k >= 0 {
			n := scanned + k + 1
			if n > maxHeaderLine {
				break
			}
			return f.buf[start : start+n], true, nil
		}
		scanned = f.w - start
		if scanned > maxHeaderLine {
			break
		}
		if !f.fill() {
			return nil, false, nil
		}
	}
	return nil, false, fmt.Errorf("%w: header line longer than %d bytes", errFraming, maxHeaderLine)
}

// endErr is the error for input that ended with n unconsumed bytes.
func (f *frameReader) endErr(n int) error {
	if f.eof == io.EOF && n > 0 {
		return io.ErrUnexpectedEOF
	}
	return f.eof
}

// resync discards input up to the next "Content-Length:" (any case),
// looking from from bytes into the window, and returns how many bytes it
// discarded. It keeps at most a header's length of bytes while it looks,
// so garbage never grows memory.
func (f *frameReader) resync(from int) (int, error) {
	skipped := 0
	from = min(from, f.w-f.r)
	for {
		if k := indexFold(f.buf[f.r+from:f.w], contentLength); k >= 0 {
			skipped += from + k
			f.r += from + k
			break
		}
		// Keep the tail that could be the start of a split header.
		keep := min(len(contentLength)-1, f.w-f.r-from)
		drop := f.w - f.r - keep
		skipped += drop
		f.r += drop
		from = 0
		if f.skipped+skipped > maxSkip {
			return skipped, fmt.Errorf("%w: no %q header in %d bytes; the peer is not speaking LSP", errFraming, contentLength, f.skipped+skipped)
		}
		if !f.fill() {
			f.skipped += skipped
			if f.eof == io.EOF {
				return skipped, io.EOF
			}
			return skipped, f.eof
		}
	}
	f.skipped += skipped
	return skipped, nil
}

// readBody reads a body of the declared length. When the declared length
// was too large, the body swallows the next frame: if a complete JSON
// value is followed by a "Content-Length:" header inside it, the body is
// cut there and the rest goes back to the input, so the next frame is
// served instead of waiting for bytes that will never come.
func (f *frameReader) readBody(length int) ([]byte, int, error) {
	// Start small and grow with what arrives: a declared length is a
	// claim, not bytes, and must not reserve memory by itself.
	if cap(f.body) < min(length, windowSize) {
		f.body = make([]byte, 0, min(length, windowSize))
	}
	body := f.body[:0]
	checks, scanned := 0, 0
	for len(body) < length {
		if f.r == f.w {
			if f.eof != nil {
				return nil, 0, f.endErr(1)
			}
			// Read straight into the body: no copy through the window.
			if cap(body) == len(body) {
				body = grow(body, length)
			}
			n, err := f.src.Read(body[len(body):min(cap(body), length)])
			body = body[:len(body)+n]
			if err != nil {
				f.eof = err
			}
		} else {
			n := min(length-len(body), f.w-f.r)
			if cap(body)-len(body) < n {
				body = grow(body, length)
			}
			body = append(body, f.buf[f.r:f.r+n]...)
			f.r += n
		}
		if checks < maxSplitChecks {
			if cut, ok := splitPoint(body, &scanned, &checks); ok {
				f.pushBack(body[cut:])
				body = body[:cut]
				break
			}
		}
	}
	f.body = body
	if cap(body) > keepBody {
		f.lastLarge = cap(body)
	}
	return body, len(body), nil
}

// grow returns b with room for at least twice its length, up to limit.
func grow(b []byte, limit int) []byte {
	n := min(max(2*cap(b), 4<<10), limit)
	nb := make([]byte, len(b), n)
	copy(nb, b)
	return nb
}

// splitPoint looks in the part of body not scanned yet for a
// "Content-Length:" that follows a complete JSON value; it returns where
// that header starts. scanned and checks carry state between calls.
func splitPoint(body []byte, scanned, checks *int) (int, bool) {
	from := max(0, *scanned-len(contentLength)+1)
	*scanned = len(body)
	for *checks < maxSplitChecks {
		k := bytes.Index(body[from:], []byte(contentLength))
		if k < 0 {
			return 0, false
		}
		at := from + k
		from = at + 1
		prev := bytes.TrimRight(body[:at], " \t\r\n")
		if len(prev) == 0 || (prev[len(prev)-1] != '}' && prev[len(prev)-1] != ']') {
			continue
		}
		*checks++
		if json.Valid(body[:at]) {
			return at, true
		}
	}
	return 0, false
}

// Resync is called when a body did not decode: if it holds a
// "Content-Length:" (its Content-Length was too large and it swallowed
// the start of the next frame), the input goes back to that header.
func (f *frameReader) Resync(body []byte) {
	if k := indexFold(body[min(1, len(body)):], contentLength); k >= 0 {
		f.pushBack(body[1+k:])
	}
}

// pushBack puts b in front of the unread input.
func (f *frameReader) pushBack(b []byte) {
	if len(b) == 0 {
		return
	}
	rest := f.buf[f.r:f.w]
	if f.r >= len(b) {
		f.r -= len(b)
		copy(f.buf[f.r:], b)
		return
	}
	nb := make([]byte, max(windowSize, len(b)+len(rest)))
	copy(nb, b)
	copy(nb[len(b):], rest)
	f.buf, f.r, f.w = nb, 0, len(b)+len(rest) // Next shrinks it once drained
}

func isBlank(line []byte) bool {
	return (len(line) == 1 && line[0] == '\n') || (len(line) == 2 && line[0] == '\r' && line[1] == '\n')
}

// headerField splits "Name: value\r\n". The name must be a token (letters,
// digits, '-'), so that the tail of a mis-sized body followed by a real
// header on the same line is a framing error, not an ignored field.
func headerField(line []byte) (name, value []byte, ok bool) {
	line = bytes.TrimRight(line, "\r\n")
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return nil, nil, false
	}
	name = line[:colon]
	for _, c := range name {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return nil, nil, false
		}
	}
	return name, bytes.TrimSpace(line[colon+1:]), true
}

func parseLength(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0 && n <= maxFrameBody
}

// asciiFold reports whether b equals the lower-case ASCII want, ignoring case.
func asciiFold(b []byte, want string) bool {
	if len(b) != len(want) {
		return false
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// indexFold returns the index of pat in b ignoring ASCII case, or -1.
func indexFold(b []byte, pat string) int {
	lower := bytes.ToLower([]byte(pat[:1]))[0]
	upper := bytes.ToUpper([]byte(pat[:1]))[0]
	for i := 0; i+len(pat) <= len(b); i++ {
		if c := b[i]; (c == lower || c == upper) && bytes.EqualFold(b[i:i+len(pat)], []byte(pat)) {
			return i
		}
	}
	return -1
}

// clip shortens garbage quoted in a log line.
func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
