package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/mcp"
	"github.com/catbuddy/cb-ls/internal/tools"
)

const mcpUsage = `usage: cb-ls mcp list [-root DIR]... [-timeout 20s] [-json] [-v]

Starts every MCP server configured in $XDG_CONFIG_HOME/catbuddy/mcp.json and
<root>/.catbuddy/mcp.json, waits until each is ready or has failed, prints
each server's state and tools, and stops them. Exit status 1 if a server
is not ready.
`

// mcpMain implements `cb-ls mcp list`.
func mcpMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprint(stderr, mcpUsage)
		return 2
	}
	fs := flag.NewFlagSet("mcp list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var roots multiFlag
	fs.Var(&roots, "root", "workspace root (repeatable; default: the current directory)")
	timeout := fs.Duration("timeout", 20*time.Second, "how long to wait for servers to start")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	verbose := fs.Bool("v", false, "log server lifecycle and stderr")
	trustProject := fs.Bool("trust-project", false, "start the servers of the projects' .catbuddy/mcp.json even if the projects are not trusted")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "cb-ls mcp: %v\n", err)
			return 1
		}
		roots = append(roots, wd)
	}
	for i, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			roots[i] = abs
		}
	}
	level := slog.LevelError
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	store := config.DefaultTrustStore()
	m := mcp.NewManager(tools.NewRegistry(), mcp.Options{Version: version, MaxFailures: 1, Logger: log,
		ProjectTrusted: func(root string) bool {
			if *trustProject {
				return true
			}
			ok, err := store.TrustedRoot(root)
			if err != nil {
				log.Warn("project trust", "error", err)
			}
			// A project without an mcp.json has nothing to trust: saying it
			// "is not trusted" would name a file that does not exist.
			if _, err := os.Stat(mcp.ProjectConfigPath(root)); !ok && err == nil {
				fmt.Fprintf(stderr, "cb-ls mcp: %s is not trusted: its servers are not started (use -trust-project)\n", mcp.ProjectConfigPath(root))
			}
			return ok
		}})
	defer m.Shutdown()
	m.Start(roots)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	settled := func(s mcp.Status) bool {
		for _, ss := range s.Servers {
			if ss.State != mcp.StateReady && ss.State != mcp.StateFailed && ss.State != mcp.StateDisabled {
				return false
			}
		}
		return true
	}
	if err := m.Wait(ctx, settled); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "cb-ls mcp: %v\n", err)
	}
	st := m.Status()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(st)
	} else {
		printMCPStatus(stdout, st)
	}
	for _, s := range st.Servers {
		if s.State != mcp.StateReady && s.State != mcp.StateDisabled {
			return 1
		}
	}
	return 0
}

func printMCPStatus(w io.Writer, st mcp.Status) {
	for _, f := range st.ConfigFiles {
		mark := ""
		if _, err := os.Stat(f); err != nil {
			mark = " (none)"
		}
		fmt.Fprintf(w, "config %s%s\n", f, mark)
	}
	for _, e := range st.Errors {
		fmt.Fprintf(w, "config error: %s\n", e)
	}
	if len(st.Servers) == 0 {
		fmt.Fprintln(w, "no MCP servers configured")
		return
	}
	for _, s := range st.Servers {
		fmt.Fprintf(w, "\n%s: %s (%s: %s)\n", s.Name, s.State, s.Transport, s.Target)
		if s.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", s.Error)
		}
		for _, t := range s.Tools {
			fmt.Fprintf(w, "  %s\n", t.Name)
		}
	}
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
