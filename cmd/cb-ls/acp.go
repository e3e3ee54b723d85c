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
	"syscall"

	"github.com/catbuddy/cb-ls/internal/acp"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
)

const acpUsage = `usage: cb-ls acp [flags]

Speaks the Agent Client Protocol (v1) on stdin/stdout: what Zed, JetBrains
IDEs, CodeCompanion, avante.nvim and Emacs agent-shell start. Each session's
folder is the client's cwd; every edit and every command that wants write
or network access is asked about with session/request_permission.
Diagnostics go to stderr. See docs/acp.md.

flags:
`

// acpMain implements "cb-ls acp".
func acpMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return acpServe(ctx, args, stdin, stdout, stderr)
}

func acpServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cb-ls acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, acpUsage); fs.PrintDefaults() }
	mode := fs.String("mode", "auto", "what the agent may touch: auto, project or internal")
	provider := fs.String("provider", "", "openai (any OpenAI-compatible server) or anthropic; overrides CB_PROVIDER")
	model := fs.String("model", "", "model name; overrides CB_MODEL")
	baseURL := fs.String("base-url", "", "API base URL; overrides CB_BASE_URL")
	maxSteps := fs.Int("max-steps", 0, "most model turns per prompt before the agent must summarise (default 30)")
	trust := fs.Bool("trust-project", false, "apply the project's .catbuddy settings that need trust without asking")
	verbose := fs.Bool("v", false, "log the protocol's events on stderr")
	var servers languageServerFlag
	fs.Var(&servers, "language-server", languageServerUsage)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "cb-ls acp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	m, err := guard.ParseMode(*mode)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls acp: --mode: %v\n", err)
		return 2
	}
	if *maxSteps < 0 {
		fmt.Fprintln(stderr, "cb-ls acp: --max-steps must be positive")
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	err = acp.Serve(ctx, stdin, stdout, acp.Options{Version: version, Logger: log, Run: acp.RunOptions{
		Mode: m, TrustProject: *trust,
		Over: config.Config{Provider: *provider, Model: *model, BaseURL: *baseURL, MaxSteps: *maxSteps, LanguageServers: servers},
	}})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "cb-ls acp: %v\n", err)
		return 1
	}
	return 0
}
