package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/shell"
)

// TestExecDescribedForTheRun: exec's description says what holds in the
// run and nothing of the other cases: over the run's layer no write
// flag, in the sandbox the write flag, without a sandbox the question
// for any command that is not known to read; sh's pipeline status
// (bash's failed command is named in the result, not described); the
// approval setting's answer; what $TMPDIR is and that $CB_SCRATCH
// outlives the call.
func TestExecDescribedForTheRun(t *testing.T) {
	bash := shell.Interpreter{Path: "/bin/bash", Bash: true}
	sh := shell.Interpreter{Path: "/bin/sh"}
	for _, tt := range []struct {
		name      string
		run       execRun
		want, not []string
	}{
		{"layer", execRun{sh: bash, view: true, layer: true, confined: true},
			[]string{"bash -c", "copy-on-write layer", "no `write` needed", "`network: true`", "the user is asked first", "`$TMPDIR` is the call's own", "`$CB_SCRATCH`", "lasts across the run's calls", "Refused:"},
			[]string{"write: true", "/bin/sh", "Commands are read-only", "No sandbox", "make, Gradle"}},
		{"sandbox", execRun{sh: sh, confined: true, approval: ApprovalReadOnly},
			[]string{"/bin/sh -c (POSIX sh", "Commands are read-only", "`write: true`", "refused here", "last command's", "`$TMPDIR` is the call's own", "`$CB_SCRATCH`", "make, Gradle"},
			[]string{"bash -c", "copy-on-write", "the user is asked", "No sandbox"}},
		{"no sandbox", execRun{sh: bash, approval: ApprovalAllowAll},
			[]string{"No sandbox", "not known to only read", "without a question", "files it changed", "`$CB_SCRATCH` lasts across the run's calls (outside the workspace)"},
			[]string{"$TMPDIR", "copy-on-write", "Commands are read-only", "the user is asked"}},
		{"view without a layer", execRun{sh: bash, view: true, confined: true},
			[]string{"No command can run in this run"},
			[]string{"write: true", "copy-on-write layer:"}},
	} {
		d := tt.run.describe()
		for _, w := range tt.want {
			if !strings.Contains(d, w) {
				t.Errorf("%s: lacks %q:\n%s", tt.name, w, d)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(d, n) {
				t.Errorf("%s: says %q, which does not hold here:\n%s", tt.name, n, d)
			}
		}
	}
}

// TestExecSpecFollowsTheRun: the registry describes exec from the
// settings the run's context carries; outside a run the spec is the
// general description.
func TestExecSpecFollowsTheRun(t *testing.T) {
	tc, _ := execToolContext(t, ExecOptions{})
	reg := NewRegistry()
	if err := reg.Register(Exec(tc)); err != nil {
		t.Fatal(err)
	}
	ctx := WithOptions(context.Background(), Options{Exec: ExecOptions{NoSandbox: true, Approval: ApprovalReadOnly}})
	spec, ok := reg.SpecFor(ctx, "exec")
	if !ok || !strings.Contains(spec.Description, "No sandbox") || !strings.Contains(spec.Description, "refused here") {
		t.Errorf("exec without the sandbox, approval readOnly:\n%s", spec.Description)
	}
	inView := WithRunView(ctx, RunView{Workspace: DiskWorkspace{}})
	if spec, _ := reg.SpecFor(inView, "exec"); !strings.Contains(spec.Description, "No command can run") {
		t.Errorf("exec in a pending run without a layer:\n%s", spec.Description)
	}
	if tool, _ := reg.Get("exec"); tool.Description != execDescription {
		t.Errorf("outside a run, exec's spec is not the general description:\n%s", tool.Description)
	}
	if _, ok := reg.SpecFor(ctx, "nope"); ok {
		t.Error("a spec for a tool that is not registered")
	}
	for _, d := range ExecDescriptions() {
		if d == "" {
			t.Error("an empty exec description")
		}
	}
}
