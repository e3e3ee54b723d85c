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
		b.WriteString("Run a command with bash -c in the workspace root or cwd (timeout: seconds, default 120); returns its output and exit code.\n")
	} else {
		b.WriteString("Run a command with /bin/sh -c (POSIX sh: bash is not installed) in the workspace root or cwd (timeout: seconds, default 120); returns its output and exit code.\n")
	}
	switch {
	case r.layer:
		b.WriteString("- Commands run over this run's copy-on-write layer: they see its pending edits, and what they write joins them (no `write` needed); the result names the files a command changed: read them again before editing. ")
		b.WriteString("No network or unix sockets without `network: true` and a short `reason`")
		b.WriteString(r.asked())
	case r.view:
		b.WriteString("- No command can run in this run: its changes are pending the user's review, and without a copy-on-write layer a command would not see them.\n")
	case r.confined:
		b.WriteString("- Commands are read-only: no changes to the workspace, no network or unix sockets. One that must change files (a generator, an install) needs `write: true` and a short `reason`; the network or sockets, `network: true` and a `reason`")
		b.WriteString(r.asked())
		b.WriteString("- A write command's result names the files it changed: read them again before editing. Go's cache, cargo's target, Python's bytecode and pytest's cache live outside the workspace; make, Gradle and Maven write in the tree: they need `write: true`.\n")
	default:
		b.WriteString("- No sandbox: commands run with the user's rights. One not known to only read (ls, cat, grep, git status/diff/log, go vet…) needs `write: true` (it changes files) or `network: true`, and a short `reason`")
		b.WriteString(r.asked())
		b.WriteString("- A write command's result names the files it changed: read them again before editing.\n")
	}
	b.WriteString("- Use edit_file for source changes. No terminal, no stdin: pass `-y`, `--no-pager`, `CI=1`.")
	if !r.sh.Bash {
		b.WriteString(" A pipeline's exit code is its last command's.")
	}
	if r.layer || r.confined {
		b.WriteString(" `$TMPDIR` is the call's own; `$CB_SCRATCH` lasts across the run's calls: put `-o`, `-coverprofile` and scratch files there.")
	} else if !r.view {
		b.WriteString(" `$CB_SCRATCH` lasts across the run's calls (outside the workspace): put scratch files there.")
	}
	b.WriteString("\n- Refused: sudo, deleting the root or home, piping downloads into a shell, a command name built at run time.")
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
	return "; the user is asked first: if they refuse, do not retry.\n"
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
