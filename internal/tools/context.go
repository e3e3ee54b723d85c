package tools

import (
	"context"
	"fmt"
	"sync"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// ToolContext is what built-in tools share. Its accessors are live: the
// guard's roots and the workspace are read at call time, so a change of
// workspace folders never requires re-registering tools.
type ToolContext struct {
	Guard     *guard.PathGuard
	Workspace Workspace
	// OnEdit, if set, is told about every write's phases.
	OnEdit EditListener
	// Diagnostics, if set, tells the editor's diagnostics: an edit's
	// result names the errors it introduced, and the diagnostics tool is
	// offered.
	Diagnostics DiagnosticsSource
	// Language, if set, answers questions about code from language
	// servers (the editor's, or ones a headless run started): the
	// language tools (lsp, rename_symbol, code_action, replace_symbol)
	// are offered for what it can answer.
	Language LanguageFeatures
	// Options tune individual tools; zero values mean defaults.
	Options Options
	// Approver asks the user before exec runs a command with write or
	// network access (or any command that is not known to only read,
	// where no sandbox keeps the workspace read-only). Nil: nobody can
	// be asked, and such commands are refused.
	Approver Approver
	// OnExecChanges, if set, is told which workspace files a command
	// created, changed or deleted.
	OnExecChanges ExecChangeListener

	allowMu sync.Mutex
	allowed []string // "Always allow" answers of this session

	saidMu sync.Mutex
	said   map[string]bool // notes said once per run, by run and note
}

// Options are per-tool settings from configuration.
type Options struct {
	// Exec tunes the exec tool (timeouts, output cap, sandbox).
	Exec ExecOptions
	// Web tunes web_fetch (allow-list, timeout, size cap).
	Web WebOptions
}

// WorkRoot returns the directory relative paths resolve against.
func (tc *ToolContext) WorkRoot() string { return tc.Guard.WorkRoot() }

// Resolve admits p through the PathGuard.
func (tc *ToolContext) Resolve(p string) (guard.Path, error) { return tc.Guard.Resolve(p) }

// FileStates returns the run's FileStates from ctx. A call without one
// (a test, a one-off) gets fresh, empty states, so tools never need to
// check for nil.
func (tc *ToolContext) FileStates(ctx context.Context) *filestate.FileStates {
	if s := filestate.FromContext(ctx); s != nil {
		return s
	}
	return filestate.New()
}

// firstInRun reports whether key is asked about for the first time in
// the run of ctx (its view's ID, else its FileStates): a note said once
// per run.
func (tc *ToolContext) firstInRun(ctx context.Context, key string) bool {
	run := ""
	if v, ok := RunViewFrom(ctx); ok && v.ID != "" {
		run = "view " + v.ID
	} else if s := filestate.FromContext(ctx); s != nil {
		run = fmt.Sprintf("states %p", s)
	} else {
		return true // no run to remember it in
	}
	tc.saidMu.Lock()
	defer tc.saidMu.Unlock()
	if tc.said == nil {
		tc.said = map[string]bool{}
	}
	k := run + "\x00" + key
	if tc.said[k] {
		return false
	}
	tc.said[k] = true
	return true
}

// notify reports an edit event if a listener is installed.
func (tc *ToolContext) notify(ctx context.Context, e EditEvent) {
	if tc.OnEdit != nil {
		tc.OnEdit(ctx, e)
	}
}

// Factory builds one built-in tool over the shared context.
type Factory func(tc *ToolContext) Tool

// Builtin is a built-in tool: its name, known without building it, and
// its factory.
type Builtin struct {
	Name string
	New  Factory
}

// Builtins lists the built-in tools. Adding a tool is one new file plus
// one line here.
var Builtins = []Builtin{
	{"read_file", ReadFile},
	{"edit_file", EditFile},
	{"write_file", WriteFile},
	{"multi_edit", MultiEdit},
	{"list_dir", ListDir},
	{"glob", Glob},
	{"grep", Grep},
	{"exec", Exec},
	{"web_fetch", WebFetch},
	{"apply_patch", ApplyPatch},
	{"update_plan", UpdatePlan},
}

// RegisterBuiltins registers every built-in tool over tc, the language
// tools tc.Language can answer, and the diagnostics tool when tc has a
// source of diagnostics (an editor). The built-in tools are registered
// lazily: each is built when it is first listed or run, so a process
// that runs one tool ("cb-ls tools run") builds only that one.
func RegisterBuiltins(r *Registry, tc *ToolContext) error {
	for _, b := range Builtins {
		if err := r.RegisterLazy(b.Name, func() Tool { return b.New(tc) }); err != nil {
			return err
		}
	}
	if err := RegisterLanguageTools(r, tc, tc.Language); err != nil {
		return err
	}
	if offersDiagnostics(tc.Diagnostics) {
		return r.Register(DiagnosticsTool(tc))
	}
	return nil
}
