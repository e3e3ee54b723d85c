package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

const toolsUsage = `usage:
  cb-ls tools list
      print the built-in tools as the model sees them:
      [{"name","description","input_schema"}]
  cb-ls tools run [--root DIR]... [--mode auto|project|internal] [--approve all|none]
      read one call per stdin line, {"name":"read_file","arguments":{...}},
      and write one result per stdout line, {"name","output","is_error"}.
      All calls share one run's file states. Edit events go to stderr.
      --approve answers exec's questions (write or network access, or a
      command not known to only read where no sandbox keeps the workspace
      read-only): none (the default) refuses them, all grants them.
`

// toolsMain implements "cb-ls tools list|run".
func toolsMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, toolsUsage)
		return 2
	}
	switch args[0] {
	case "list":
		return toolsList(args[1:], stdout, stderr)
	case "run":
		return toolsRun(args[1:], stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, toolsUsage)
		return 0
	}
	fmt.Fprintf(stderr, "cb-ls tools: unknown subcommand %q\n\n%s", args[0], toolsUsage)
	return 2
}

// rootList is a repeatable --root flag.
type rootList []string

func (r *rootList) String() string     { return strings.Join(*r, ",") }
func (r *rootList) Set(s string) error { *r = append(*r, s); return nil }

// toolsFlags parses the flags shared by list and run; more adds a
// subcommand's own.
func toolsFlags(name string, args []string, stderr io.Writer, more func(*flag.FlagSet)) (roots []string, mode guard.Mode, err error) {
	fs := flag.NewFlagSet("cb-ls tools "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if more != nil {
		more(fs)
	}
	var rl rootList
	fs.Var(&rl, "root", "workspace folder (repeatable; the first is the work root; default: the current directory)")
	modeStr := fs.String("mode", "auto", "auto, project or internal")
	if err := fs.Parse(args); err != nil {
		return nil, 0, err
	}
	if fs.NArg() > 0 {
		return nil, 0, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	mode, err = guard.ParseMode(*modeStr)
	if err != nil {
		return nil, 0, err
	}
	if len(rl) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, 0, fmt.Errorf("current directory: %w", err)
		}
		rl = rootList{wd}
	}
	for _, r := range rl {
		fi, err := os.Stat(r)
		if err != nil {
			return nil, 0, fmt.Errorf("--root %s: %w", r, err)
		}
		if !fi.IsDir() {
			return nil, 0, fmt.Errorf("--root %s: not a directory", r)
		}
	}
	return rl, mode, nil
}

// newToolApp builds the built-in tools over a disk workspace, with the
// language tools answered by servers (the languageServers setting of the
// user's and, once trusted, the project's config) when any are named.
// The caller Closes the App.
func newToolApp(roots []string, mode guard.Mode, servers map[string]config.LanguageServer, onEdit tools.EditListener, approver tools.Approver) (*app.App, error) {
	return app.New(app.Options{Roots: roots, Mode: mode, OnEdit: onEdit, Approver: approver, LanguageServers: servers})
}

func toolsList(args []string, stdout, stderr io.Writer) int {
	roots, mode, err := toolsFlags("list", args, stderr, nil)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "cb-ls tools list: %v\n", err)
		return 2
	}
	a, err := newToolApp(roots, mode, nil, nil, nil)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls tools list: %v\n", err)
		return 1
	}
	defer a.Close()
	reg := a.Registry
	out, err := json.MarshalIndent(tools.Specs(reg.List()), "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls tools list: %v\n", err)
		return 1
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", out); err != nil {
		return 1
	}
	return 0
}

// toolCall is one line of "tools run" input.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// toolResult is one line of "tools run" output.
type toolResult struct {
	Name    string `json:"name"`
	Output  string `json:"output"`
	IsError bool   `json:"is_error"`
}

func toolsRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	approve := "none"
	var servers languageServerFlag
	roots, mode, err := toolsFlags("run", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&approve, "approve", "none", "answer to exec's approval questions: all or none")
		fs.Var(&servers, "language-server", languageServerUsage)
	})
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "cb-ls tools run: %v\n", err)
		return 2
	}
	var approver tools.Approver
	switch approve {
	case "all":
		approver = tools.ApproveAll
	case "none":
		approver = tools.ApproverFunc(func(context.Context, tools.ApprovalRequest) (tools.Decision, error) {
			return tools.Rejected, errors.New("cb-ls tools run refuses it (--approve none); --approve all grants it")
		})
	default:
		fmt.Fprintf(stderr, "cb-ls tools run: --approve %q: want all or none\n", approve)
		return 2
	}
	var errMu sync.Mutex // tools may report edits from several goroutines
	onEdit := func(_ context.Context, e tools.EditEvent) {
		errMu.Lock()
		defer errMu.Unlock()
		fmt.Fprintln(stderr, formatEditEvent(e))
	}
	loaded, err := config.Load(config.LoadOptions{Root: roots[0], Over: []config.Config{{LanguageServers: servers}}})
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls tools run: %v\n", err)
		return 2
	}
	if msg := loaded.IgnoredSummary(roots[0]); msg != "" {
		fmt.Fprintf(stderr, "cb-ls tools run: %s\n", msg)
	}
	a, err := newToolApp(roots, mode, loaded.LanguageServers, onEdit, approver)
	if err != nil {
		fmt.Fprintf(stderr, "cb-ls tools run: %v\n", err)
		return 1
	}
	defer a.Close()
	reg, g := a.Registry, a.Guard
	fmt.Fprintf(stderr, "cb-ls tools run: work root %s (%s mode)\n", g.WorkRoot(), g.Mode())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = filestate.NewContext(ctx, filestate.New()) // one run: dedup and read checks span all calls

	in := bufio.NewReaderSize(stdin, 64<<10)
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, readErr := in.ReadBytes('\n') // no line-length limit: write_file content can be large
		if len(bytes.TrimSpace(line)) > 0 {
			res, runErr := runCall(ctx, reg, line)
			if err := enc.Encode(res); err != nil {
				fmt.Fprintf(stderr, "cb-ls tools run: write result: %v\n", err)
				return 1
			}
			if err := out.Flush(); err != nil {
				fmt.Fprintf(stderr, "cb-ls tools run: write result: %v\n", err)
				return 1
			}
			if runErr != nil {
				fmt.Fprintf(stderr, "cb-ls tools run: %v\n", runErr)
				return 1
			}
		}
		if readErr == io.EOF {
			return 0
		}
		if readErr != nil {
			fmt.Fprintf(stderr, "cb-ls tools run: read: %v\n", readErr)
			return 1
		}
	}
}

// runCall decodes and executes one input line. Malformed lines become
// error results; the returned error is set only when ctx ended.
func runCall(ctx context.Context, reg *tools.Registry, line []byte) (toolResult, error) {
	var c toolCall
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&c); err != nil {
		return toolResult{Output: fmt.Sprintf("Error: the line is not a JSON tool call (%v); want {\"name\":\"TOOL\",\"arguments\":{...}}", err), IsError: true}, nil
	}
	if dec.More() {
		return toolResult{Name: c.Name, Output: "Error: one JSON tool call per line, got more after it", IsError: true}, nil
	}
	if c.Name == "" {
		return toolResult{Output: `Error: the call has no "name"; want {"name":"TOOL","arguments":{...}}`, IsError: true}, nil
	}
	res, err := reg.Execute(ctx, c.Name, c.Arguments)
	return toolResult{Name: c.Name, Output: res.Output, IsError: res.IsError}, err
}

// formatEditEvent renders an edit event for stderr.
func formatEditEvent(e tools.EditEvent) string {
	where := e.Rel
	if where == "" {
		where = e.Path
	}
	switch e.Phase {
	case tools.EditDone:
		return fmt.Sprintf("edit: %s %s: done +%d -%d", e.Tool, where, e.Added, e.Removed)
	case tools.EditFailed:
		return fmt.Sprintf("edit: %s %s: failed: %s", e.Tool, where, e.Message)
	}
	return fmt.Sprintf("edit: %s %s: %s", e.Tool, where, e.Phase)
}
