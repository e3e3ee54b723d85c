// Command scriptmodel serves a scripted model over HTTP for editor
// end-to-end tests: it speaks the OpenAI chat-completions and Anthropic
// Messages wire formats and replays the turns of a script file by
// request index (see docs/agent.md for the script format).
//
//	scriptmodel --script turns.json [--addr 127.0.0.1:0] [--record requests.jsonl]
//
// The first line on stdout is the base URL to configure cb-ls with
// (http://127.0.0.1:PORT/v1). It serves until killed (SIGINT/SIGTERM).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scriptmodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scriptPath := fs.String("script", "", "script file (JSON: {\"turns\": [...]} or [...])")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	recordPath := fs.String("record", "", "append every request received to this file, one JSON object a line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *scriptPath == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: scriptmodel --script turns.json [--addr 127.0.0.1:0] [--record requests.jsonl]")
		return 2
	}
	script, err := agenttest.LoadScript(*scriptPath)
	if err != nil {
		fmt.Fprintf(stderr, "scriptmodel: %v\n", err)
		return 1
	}
	srv, err := agenttest.Start(script, *addr)
	if err != nil {
		fmt.Fprintf(stderr, "scriptmodel: %v\n", err)
		return 1
	}
	defer srv.Close()
	if *recordPath != "" {
		f, err := os.OpenFile(*recordPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "scriptmodel: record: %v\n", err)
			return 1
		}
		defer f.Close()
		var mu sync.Mutex
		srv.OnRequest = func(r agenttest.Request) {
			line, err := json.Marshal(redacted(r))
			if err != nil {
				fmt.Fprintf(stderr, "scriptmodel: record request %d: %v\n", r.Index, err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if _, err := f.Write(append(line, '\n')); err != nil {
				fmt.Fprintf(stderr, "scriptmodel: record: %v\n", err)
			}
		}
	}
	fmt.Fprintln(stdout, srv.URL())
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	<-ctx.Done()
	return 0
}

// redacted returns r with credentials masked: the record file is written
// to disk and may be kept as a CI artifact, so keys never reach it. The
// mask keeps the length so a test can still tell a key was sent.
func redacted(r agenttest.Request) agenttest.Request {
	h := r.Header.Clone()
	for _, k := range []string{"Authorization", "X-Api-Key"} {
		if v := h.Get(k); v != "" {
			h.Set(k, fmt.Sprintf("<redacted %d bytes>", len(v)))
		}
	}
	r.Header = h
	return r
}
