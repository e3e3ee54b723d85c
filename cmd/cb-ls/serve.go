package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/lsp"
)

// serveMain speaks LSP on stdin/stdout. Logs go to stderr only: stdout
// carries the protocol and a stray byte there breaks the editor's client.
func serveMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logLevel := fs.String("log-level", "info", "log level on stderr: debug, info, warn, error")
	mode := fs.String("mode", "auto", "default workspace mode: auto, project or internal (initializationOptions.mode wins)")
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the only transport; accepted for editors that pass it)")
	// vscode-languageclient appends --clientProcessId=<pid> for stdio
	// servers; the processId in initialize serves the same purpose.
	fs.Int("clientProcessId", 0, "accepted and ignored (the initialize processId is watched)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "cb-ls serve: --log-level: %v\n", err)
		return 2
	}
	m, err := guard.ParseMode(*mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls serve: --mode: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	if os.Getenv("GOGC") == "" {
		// Open documents are the live heap; didOpen frames are decoded
		// into garbage of the same size. Collecting at 25% growth instead
		// of 100% keeps the process near its live size (1,000 open 100 KB
		// documents stay under 3× their text in RSS) for a little more GC
		// work, which an editor-side server can afford.
		debug.SetGCPercent(25)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = lsp.Serve(ctx, stdio{pollable(stdin), stdout}, lsp.Options{Logger: log, Mode: m, Version: version})
	switch {
	case err == nil:
		return 0
	case errors.Is(err, lsp.ErrExitWithoutShutdown):
		log.Info("exiting without shutdown", "reason", err)
		return 1
	default:
		log.Error("server stopped", "error", err)
		return 1
	}
}

// stdio joins stdin and stdout into the connection's ReadWriteCloser.
type stdio struct {
	r io.Reader
	w io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }

// Close closes stdin so that a read blocked on it returns; stdout stays
// open for the process's last words.
func (s stdio) Close() error {
	if c, ok := s.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
