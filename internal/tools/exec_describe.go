package tools

import (
	"context"
	"strings"

	"github.com/catbuddy/cb-ls/internal/shell"
)

// execRun is what decides how exec behaves in one run: the shell, where
// commands run (over the run's layer, in the sandbox, or unconfined)
// and what a request for write or network access meets.
type execRun struct {
	sh       shell.Interpreter
	view     bool // the run's changes are pending (RunView)
	layer    bool // and commands run over its copy-on-write layer
	confined bool // the sandbox keeps every promise (sandbox.Info.Full)
	approval string
}

// execRunOf reads the run's settings from ctx.
func (tc *ToolContext) execRunOf(ctx context.Context) execRun {
	opts := tc.options(ctx).Exec
	info := opts.SandboxInfo()
	r := execRun{sh: hostShell(), confined: info.Full, approval: opts.Approval}
	if v, ok := RunViewFrom(ctx); ok {
		r.view, r.layer = true, v.Layer != nil && info.Overlay
	}
	return r
}

// describeExec is exec's description for the run ctx carries: only
// what holds in it (the shell, the layer or the sandbox or neither, the
// approval setting), so that the model is not told every case.
func (tc *ToolContext) describeExec(ctx context.Context) string {
	return tc.execRunOf(ctx).describe()
}

func (r execRun) describe() string {
	var b strings.Builder
	if r.sh.Bash {
		b.WriteString("Run a command line with bash -c in the workspace; returns its stdout and stderr, exit code and duration.\n")
	} else {
		b.WriteString("Run a command line with /bin/sh -c (POSIX sh: bash is not installed) in the workspace; returns its stdout and stderr, exit code and duration.\n")
	}
	switch {
	case r.layer:
		b.WriteString("- Commands run over this run's copy-on-write layer: they see its pending edits, and what they write joins them for the user to review (no `write` needed); the result names the files a command changed: read them again before editing. ")
		b.WriteString("No network or unix sockets (docker, a test's own socket) unless you pass `network: true` with a short `reason`")
		b.WriteString(r.asked())
	case r.view:
		b.WriteString("- No command can run in this run: its changes are pending the user's review, and without a copy-on-write layer a command would not see them.\n")
	case r.confined:
		b.WriteString("- Commands are read-only: no changes to the workspace, no network, no unix sockets (docker, a test's own socket). A command that must change files (a generator, an install) needs `write: true` with a short `reason`; the network or unix sockets, `network: true` with a `reason`")
		b.WriteString(r.asked())
		b.WriteString("- A write command's result lists the files it changed: read them again before editing. Go's cache, cargo's target (`$CARGO_TARGET_DIR`), Python's bytecode and pytest's cache live outside the workspace; make, Gradle and Maven write in the tree: they need `write: true`.\n")
	default:
		b.WriteString("- No sandbox: commands run with the user's rights. One not known to only read (ls, cat, grep, git status/diff/log, go vet…) needs `write: true` (it changes files) or `network: true`, with a short `reason`")
		b.WriteString(r.asked())
		b.WriteString("- A write command's result lists the files it changed: read them again before editing.\n")
	}
	b.WriteString("- Use edit_file for source changes. No terminal, no stdin: never run interactive programs; pass `-y`, `--no-pager`, `CI=1`. Long output is cut in the middle. ")
	if r.sh.Bash {
		b.WriteString("A failed command of a list or pipeline is named after the exit code.")
	} else {
		b.WriteString("A pipeline's exit code is its last command's.")
	}
	if r.layer || r.confined {
		b.WriteString(" `$TMPDIR` is the call's own, removed when it ends; `$CB_SCRATCH` lasts across the run's calls: put `-coverprofile`, `-o` and scratch files there.")
	} else if !r.view {
		b.WriteString(" `$CB_SCRATCH` lasts across the run's calls (outside the workspace): put scratch files there.")
	}
	b.WriteString("\n- Refused: deleting the root or home, disk formatting, sudo, piping downloads or decoded data into a shell, a command name built at run time (`$(…)`, a variable), .catbuddy/, internal addresses.")
	return b.String()
}

// asked ends the sentence on a request for write or network access with
// what the run's approval setting does with it.
func (r execRun) asked() string {
	switch r.approval {
	case ApprovalReadOnly:
		return ": such requests are refused here (tools.exec.approval readOnly).\n"
	case ApprovalAllowAll:
		return ": granted without a question (tools.exec.approval allowAll).\n"
	}
	return ". The user is asked first; if they refuse, do not retry.\n"
}

// ExecDescriptions are the descriptions exec may give, one per case
// (shell, where commands run, approval setting), for tests that bound
// what every request carries.
func ExecDescriptions() []string {
	var out []string
	for _, sh := range []shell.Interpreter{{Path: "/bin/bash", Bash: true}, {Path: "/bin/sh"}} {
		for _, where := range []execRun{{view: true, layer: true, confined: true}, {view: true, confined: true}, {confined: true}, {}} {
			for _, a := range []string{ApprovalAsk, ApprovalReadOnly, ApprovalAllowAll} {
				r := where
				r.sh, r.approval = sh, a
				out = append(out, r.describe())
			}
		}
	}
	return out
}
