// Command cb-ls is a language server that puts a coding agent inside the
// editor, and the same agent and tools on the command line.
//
//	cb-ls serve                 LSP on stdio (also: bare cb-ls started by an editor)
//	cb-ls run "instruction"     run the agent headless against the disk
//	cb-ls changes [runId]       show, keep or discard a run's pending changes
//	cb-ls acp                   Agent Client Protocol agent on stdio (Zed, JetBrains, …)
//	cb-ls tools list|run        the tool layer, one JSON call per line
//	cb-ls mcp list              configured MCP servers and their tools
//	cb-ls version
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/catbuddy/cb-ls/internal/headless"
	"github.com/catbuddy/cb-ls/internal/sandbox"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage: cb-ls <command> [arguments]

commands:
  serve            speak LSP on stdin/stdout (what editors start)
  run              run the agent headless: cb-ls run [flags] "instruction"
  changes          show, keep (--keep) or discard (--discard) a run's pending changes
  acp              speak the Agent Client Protocol on stdin/stdout (Zed, JetBrains, CodeCompanion, …)
  tools list       print the tools as the model sees them (JSON)
  tools run        read one JSON tool call per stdin line, answer one per stdout line
  mcp list         show configured MCP servers and their tools
  version          print the version

Run "cb-ls <command> -h" for a command's flags.
`

func main() {
	// A confined command starts as this binary re-executed: become the
	// sandbox helper before anything else runs.
	sandbox.Main()
	applyUserLimits()
	stop := startProfile()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if isTerminal(stdin) {
			fmt.Fprint(stderr, usage)
			return 2
		}
		return serveMain(nil, stdin, stdout, stderr) // started by an editor
	}
	switch args[0] {
	case "serve", "--stdio":
		return serveMain(args[1:], stdin, stdout, stderr)
	case "run":
		return runMain(args[1:], stdin, stdout, stderr)
	case "changes":
		return changesMain(args[1:], stdout, stderr)
	case "tools":
		return toolsMain(args[1:], stdin, stdout, stderr)
	case "acp":
		return acpMain(args[1:], stdin, stdout, stderr)
	case "mcp":
		return mcpMain(args[1:], stdin, stdout, stderr)
	case "version", "--version", "-v":
		return versionMain(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "cb-ls: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func isTerminal(r io.Reader) bool { return headless.IsTerminal(r) }
