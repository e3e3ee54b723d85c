package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// result is one server's figures for one run.
type result struct {
	Server         string  `json:"server"`
	Run            int     `json:"run"`
	DocumentBytes  int     `json:"document_bytes"`
	Changes        int     `json:"changes"`
	InitializeMs   float64 `json:"initialize_ms"`     // process start → initialize answered
	LatencyP50Ms   float64 `json:"latency_p50_ms"`    // didChange sent → the probe after it answered
	LatencyP99Ms   float64 `json:"latency_p99_ms"`    //
	CPUPerChangeUs float64 `json:"cpu_per_change_us"` // server CPU during typing / changes
	// The same CPU split into user and system time (getrusage's figures,
	// in 10 ms ticks: 10,000 changes resolve them to a few per cent), and
	// the times the server's threads were put on a CPU per change.
	UserPerChangeUs  float64 `json:"user_per_change_us"`
	SysPerChangeUs   float64 `json:"sys_per_change_us"`
	WakeupsPerChange float64 `json:"wakeups_per_change"`
	PeakRSSKB        int64   `json:"peak_rss_kb"`     // VmHWM at the end
	Error            string  `json:"error,omitempty"` //
}

// exitWait is how long a server may take to exit after "exit" before it
// is killed (-exitwait: a server under valgrind writes its profile then).
var exitWait = 5 * time.Second

// answerTimeout bounds every wait for the server, so a hung server fails the
// run instead of the benchmark.
const answerTimeout = 2 * time.Minute

func measure(s server, text string, n int, seed int64) (res result, err error) {
	res = result{Server: s.label, DocumentBytes: len(text), Changes: n}
	dir, err := os.MkdirTemp("", "lsp-drive-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	path := filepath.Join(dir, "bench.go")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return res, err
	}

	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return res, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(exitWait):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	c := newConn(stdin, stdout)
	pid := cmd.Process.Pid

	root := (&url.URL{Scheme: "file", Path: dir}).String()
	if _, err := c.wait("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": root,
		"workspaceFolders": []map[string]string{{"uri": root, "name": "bench"}},
		"capabilities":     map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-16"}}},
	}); err != nil {
		return res, err
	}
	res.InitializeMs = ms(time.Since(start))
	uri := (&url.URL{Scheme: "file", Path: path}).String()
	if err := c.notify("initialized", map[string]any{}); err != nil {
		return res, err
	}
	if err := c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": text,
	}}); err != nil {
		return res, err
	}
	if err := c.probe(); err != nil { // the document is open and settled
		return res, err
	}

	lines := strings.Count(text, "\n")
	rnd := rand.New(rand.NewSource(seed))
	lat := make([]time.Duration, 0, n)
	cpu0, err := cpuTime(pid)
	if err != nil {
		return res, err
	}
	_, wake0, _ := schedTime(pid)
	user0, sys0, _ := statTime(pid)
	for i := 0; i < n; i++ {
		line := rnd.Intn(lines)
		at := map[string]int{"line": line, "character": 0}
		t := time.Now()
		if err := c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []map[string]any{{"range": map[string]any{"start": at, "end": at}, "text": "x"}},
		}); err != nil {
			return res, err
		}
		if err := c.probe(); err != nil {
			return res, fmt.Errorf("change %d: %w", i+1, err)
		}
		lat = append(lat, time.Since(t))
	}
	cpu1, err := cpuTime(pid)
	if err != nil {
		return res, err
	}
	_, wake1, _ := schedTime(pid)
	user1, sys1, _ := statTime(pid)
	if res.PeakRSSKB, err = peakRSS(pid); err != nil {
		return res, err
	}
	if n > 0 {
		slices.Sort(lat)
		res.LatencyP50Ms = ms(lat[n/2])
		res.LatencyP99Ms = ms(lat[min(n-1, n*99/100)])
		res.CPUPerChangeUs = float64((cpu1 - cpu0).Microseconds()) / float64(n)
		res.UserPerChangeUs = float64((user1 - user0).Microseconds()) / float64(n)
		res.SysPerChangeUs = float64((sys1 - sys0).Microseconds()) / float64(n)
		res.WakeupsPerChange = float64(wake1-wake0) / float64(n)
	}
	if _, err := c.wait("shutdown", nil); err != nil {
		return res, err
	}
	return res, c.notify("exit", nil)
}

// probe sends a request every server answers (an unknown command's error is
// an answer) and waits for it: servers handle messages in order, so the
// answer means everything sent before it has been applied.
func (c *conn) probe() error {
	_, err := c.wait("workspace/executeCommand", map[string]any{"command": "drive.probe", "arguments": []any{}})
	return err
}

// wait sends a request and waits for its response.
func (c *conn) wait(method string, params any) (json.RawMessage, error) {
	ch, err := c.call(method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case body, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the server closed its output", method)
		}
		return body, nil
	case <-time.After(answerTimeout):
		return nil, errors.New(method + ": no answer within " + answerTimeout.String())
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
