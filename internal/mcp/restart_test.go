package mcp

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// A call that arrives while its server restarts after a crash waits for
// the restart and then succeeds; one whose time runs out first says the
// server is still restarting. The restart is held at the moment the
// crashed session has ended, which is where a call used to find the
// server "ready" with no session.
func TestCallDuringRestart(t *testing.T) {
	root := t.TempDir()
	short := stdioEntry(t)
	short["timeout"] = 1
	writeConfig(t, root, map[string]any{"test": stdioEntry(t), "short": short})
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, io.Discard)

	type hold struct {
		once    sync.Once
		ended   chan struct{} // closed when the first session has ended
		release func()        // lets the restart go on
		resume  chan struct{}
		waiting chan struct{} // a call waits for the server
	}
	holds := map[string]*hold{}
	for _, name := range []string{"test", "short"} {
		resume := make(chan struct{})
		h := &hold{ended: make(chan struct{}), resume: resume, release: sync.OnceFunc(func() { close(resume) }), waiting: make(chan struct{}, 1)}
		holds[name] = h
		t.Cleanup(h.release) // runs before the manager's Shutdown
	}
	m.sessionEnded = func(name string) {
		h := holds[name]
		h.once.Do(func() {
			close(h.ended)
			<-h.resume
		})
	}
	m.callWaits = func(name string) {
		select {
		case holds[name].waiting <- struct{}{}:
		default:
		}
	}
	m.Start([]string{root})
	waitFor(t, m, "the servers", func(s Status) bool {
		return serverIs("test", StateReady, 0)(s) && serverIs("short", StateReady, 0)(s)
	})

	type result struct {
		res tools.Result
		err error
	}
	callAsync := func(name, args string) chan result {
		ch := make(chan result, 1)
		go func() {
			res, err := reg.Execute(t.Context(), name, []byte(args))
			ch <- result{res, err}
		}()
		return ch
	}

	// The call waits for the restart and then reaches the new process.
	h := holds["test"]
	call(t, reg, "mcp_test_crash", `{}`)
	<-h.ended
	done := callAsync("mcp_test_echo", `{"text":"during restart"}`)
	select {
	case r := <-done:
		t.Fatalf("a call during the restart answered at once: %+v, %v", r.res, r.err)
	case <-h.waiting:
	}
	h.release()
	if r := <-done; r.err != nil || r.res.IsError || r.res.Output != "echo: during restart" {
		t.Errorf("call during the restart = %+v, %v; want the echo from the restarted server", r.res, r.err)
	}

	// The call's own time bounds the wait, and the answer says so.
	h = holds["short"]
	call(t, reg, "mcp_short_crash", `{}`)
	<-h.ended
	r := <-callAsync("mcp_short_echo", `{"text":"too late"}`)
	h.release()
	if r.err != nil || !r.res.IsError || !strings.Contains(r.res.Output, `MCP server "short" is still retrying after `) || !strings.Contains(r.res.Output, "of waiting for it") {
		t.Errorf("call that outlived its time = %+v, %v; want it to say the server is still restarting", r.res, r.err)
	}
	waitFor(t, m, "the restart", serverIs("short", StateReady, 1))
}
