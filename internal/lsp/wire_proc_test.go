package lsp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// wireProc is the real cb-ls binary driven over its stdin/stdout pipes,
// byte for byte, for tests of what arrives on the wire.
type wireProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer

	mu      sync.Mutex
	frames  []map[string]json.RawMessage
	raw     [][]byte
	arrived chan struct{}
	done    chan struct{} // closed when stdout ends
}

type lockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed and replaced at every write
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written != nil {
		close(l.written)
	}
	l.written = make(chan struct{})
	return l.b.Write(p)
}

// wait returns at the next write, or after d.
func (l *lockedBuffer) wait(d time.Duration) {
	l.mu.Lock()
	if l.written == nil {
		l.written = make(chan struct{})
	}
	ch := l.written
	l.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(d):
	}
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// sharedBinary builds cmd/cb-ls once for every wire test.
func sharedBinary(t *testing.T) string {
	t.Helper()
	testenv.SkipIfShort(t, "builds the binary")
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cb-ls-wire")
		if err != nil {
			binErr = err
			return
		}
		binPath = dir + "/cb-ls"
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/catbuddy/cb-ls/cmd/cb-ls").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build cb-ls: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// startWire starts `cb-ls serve` in dir and initializes it.
func startWire(t *testing.T, dir string) *wireProc {
	t.Helper()
	return startWireWith(t, dir, fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{}}`, fileuri.FromPath(dir)))
}

// startWireWith starts `cb-ls serve` in dir and initializes it with
// params (initialize's, as JSON).
func startWireWith(t *testing.T, dir, params string) *wireProc {
	t.Helper()
	cmd := exec.Command(sharedBinary(t), "serve", "--log-level", "debug")
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &wireProc{t: t, cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, arrived: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.readLoop(stdout)
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("server stderr:\n%s", p.stderr.String())
		}
	})
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":%s}`, params))
	p.await("init")
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	return p
}

func (p *wireProc) readLoop(stdout io.Reader) {
	defer close(p.done)
	r := textproto.NewReader(bufio.NewReader(stdout))
	for {
		h, err := r.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, err := strconv.Atoi(h.Get("Content-Length"))
		if err != nil {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r.R, body); err != nil {
			return
		}
		var m map[string]json.RawMessage
		_ = json.Unmarshal(body, &m)
		p.mu.Lock()
		p.frames = append(p.frames, m)
		p.raw = append(p.raw, body)
		close(p.arrived)
		p.arrived = make(chan struct{})
		p.mu.Unlock()
	}
}

// write sends raw bytes.
func (p *wireProc) write(b []byte) {
	p.t.Helper()
	if _, err := p.stdin.Write(b); err != nil {
		p.t.Fatalf("write to the server: %v\nstderr:\n%s", err, p.stderr.String())
	}
}

// send sends one well-formed frame.
func (p *wireProc) send(body string) { p.write(frame(body)) }

// find returns the first frame matching pred.
func (p *wireProc) find(pred func(m map[string]json.RawMessage, raw []byte) bool) (map[string]json.RawMessage, []byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, m := range p.frames {
		if pred(m, p.raw[i]) {
			return m, p.raw[i], true
		}
	}
	return nil, nil, false
}

// awaitFrame waits for a frame matching pred; it fails after 30s or when
// the server's output ends first.
func (p *wireProc) awaitFrame(what string, pred func(m map[string]json.RawMessage, raw []byte) bool) (map[string]json.RawMessage, []byte) {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		p.mu.Lock()
		ch := p.arrived
		p.mu.Unlock()
		if m, raw, ok := p.find(pred); ok {
			return m, raw
		}
		select {
		case <-ch:
		case <-p.done:
			if m, raw, ok := p.find(pred); ok {
				return m, raw
			}
			p.t.Fatalf("the server's output ended before %s\nstderr:\n%s", what, p.stderr.String())
		case <-deadline:
			p.t.Fatalf("no %s within 30s\nstderr:\n%s", what, p.stderr.String())
		}
	}
}

// await waits for the response with string id.
func (p *wireProc) await(id string) map[string]json.RawMessage {
	p.t.Helper()
	want := strconv.Quote(id)
	m, _ := p.awaitFrame("response "+want, func(m map[string]json.RawMessage, _ []byte) bool {
		return string(m["id"]) == want && (m["result"] != nil || m["error"] != nil)
	})
	return m
}

// readTool runs read_file through catbuddy.runTool and returns its output
// and whether it was an error.
func (p *wireProc) readTool(id, path string) (string, bool) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"workspace/executeCommand","params":{"command":"catbuddy.runTool","arguments":[{"name":"read_file","arguments":{"path":%q}}]}}`, id, path))
	m := p.await(id)
	var res struct {
		Output  string `json:"output"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal(m["result"], &res); err != nil {
		p.t.Fatalf("runTool %s: %s", id, m["error"])
	}
	return res.Output, res.IsError
}

// ping checks the server still answers a request.
func (p *wireProc) ping(id string) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"workspace/executeCommand","params":{"command":"catbuddy.listTools"}}`, id))
	if m := p.await(id); m["result"] == nil {
		p.t.Fatalf("%s: %s", id, m["error"])
	}
}

// awaitLog waits until the server's log holds sub at least n times: it
// arrives on stderr, a pipe of its own, so it may trail the replies.
func (p *wireProc) awaitLog(sub string, n int) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(p.stderr.String(), sub) < n {
		if time.Now().After(deadline) {
			p.t.Fatalf("the log names %q %d times, want at least %d:\n%s", sub, strings.Count(p.stderr.String(), sub), n, p.stderr.String())
		}
		p.stderr.wait(time.Second)
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *wireProc) wait(d time.Duration) int {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { <-p.done; done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			p.t.Fatalf("wait: %v", err)
		}
		return 0
	case <-time.After(d):
		p.t.Fatalf("the server did not exit within %v\nstderr:\n%s", d, p.stderr.String())
		return -1
	}
}

// rssKB returns the process's resident set size in KiB.
func (p *wireProc) rssKB() int {
	p.t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		testenv.Needs(p.t, false, "/proc", err.Error(), "Linux with /proc mounted")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	testenv.Needs(p.t, false, "VmRSS in /proc/PID/status", "not in "+string(b), "a Linux kernel that reports VmRSS")
	return 0
}
