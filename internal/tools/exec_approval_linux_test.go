package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// On the split grants (no user namespaces) the names in .catbuddy/
// cannot be hidden from a command, so while it exists no command runs
// without the user's say, read-only ones included; before it exists
// nothing changes, and nothing can create it.
func TestSplitFallbackAsksWhileStateDirExists(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Landlock > 0, "Landlock", info.Summary)
	sandbox.ForceSplitGrants(true)
	t.Cleanup(func() { sandbox.ForceSplitGrants(false) })
	if info := sandbox.Probe(); info.Full || info.Namespaces {
		t.Fatalf("forced split grants, the sandbox reports %+v", info)
	}
	ask := &askRecorder{answer: Rejected}
	tc, r, root := approvalContext(t, ExecOptions{}, ask)
	find := map[string]any{"command": "find . -maxdepth 3"}

	// No .catbuddy/: a read-only command runs at once, and cannot make one.
	out := execArgs(t, t.Context(), r, find).Output
	if ask.count() != 0 || !strings.Contains(out, "./keep.txt") || !strings.Contains(out, "[sandbox: on, partial:") {
		t.Fatalf("without .catbuddy/: %d questions, output %q", ask.count(), out)
	}
	execArgs(t, t.Context(), r, map[string]any{"command": "d=.catbudd; mkdir ${d}y", "write": true})
	if _, err := os.Lstat(filepath.Join(root, ".catbuddy")); err == nil {
		t.Fatal("an approved write command created .catbuddy/")
	}
	ask.asked = nil

	writeTestFile(t, filepath.Join(root, ".catbuddy", "sessions", "run-name-1.jsonl"), "state-secret")
	res := execArgs(t, t.Context(), r, find)
	if ask.count() != 1 {
		t.Fatalf("with .catbuddy/: %d questions, want 1", ask.count())
	}
	q := ask.asked[0]
	if !q.StateListable || !strings.Contains(q.Message(), "list the names of the files in .catbuddy/") ||
		strings.Contains(q.Message(), "full access") {
		t.Errorf("the question does not say why it is asked: %q", q.Message())
	}
	if !res.IsError || strings.Contains(res.Output, "run-name-1") || !strings.Contains(res.Output, "rejected") {
		t.Errorf("rejected: %+v", res)
	}

	// The user's approval is the user's choice; the contents stay unreadable.
	ask.answer = Approved
	out = execArgs(t, t.Context(), r, map[string]any{"command": `find . -maxdepth 3; for f in $(find . -name '*.jsonl'); do cat "$f"; done`}).Output
	if !strings.Contains(out, "run-name-1") || strings.Contains(out, "state-secret") ||
		!strings.Contains(out, "every command is asked about while .catbuddy/ exists") {
		t.Errorf("approved: %q", out)
	}

	// approval readOnly refuses without asking, and says why.
	tc.Options.Exec.Approval = ApprovalReadOnly
	before := ask.count()
	res = execArgs(t, t.Context(), r, find)
	if ask.count() != before || !res.IsError || !strings.Contains(res.Output, ".catbuddy/") || strings.Contains(res.Output, "run-name-1") {
		t.Errorf("readOnly: %d new questions, %+v", ask.count()-before, res)
	}

	// The user's own allow rule runs it without a question.
	tc.Options.Exec.Approval, tc.Options.Exec.Allow = "", []string{"find"}
	before = ask.count()
	if out := execArgs(t, t.Context(), r, find).Output; ask.count() != before || !strings.Contains(out, "allowed by the rule") {
		t.Errorf("allow rule: %d new questions, %q", ask.count()-before, out)
	}

	// "Always allow ls" is offered for a lone read-only command, and kept.
	tc.Options.Exec.Allow = nil
	ask.answer = AlwaysApproved
	before = ask.count()
	execArgs(t, t.Context(), r, map[string]any{"command": "ls -A"})
	if ask.count() != before+1 || ask.asked[before].Prefix != "ls" {
		t.Fatalf("ls: %d new questions, prefix %q", ask.count()-before, ask.asked[len(ask.asked)-1].Prefix)
	}
	if out := execArgs(t, t.Context(), r, map[string]any{"command": "ls -la"}).Output; ask.count() != before+1 || !strings.Contains(out, "keep.txt") {
		t.Errorf("after Always allow ls: %d new questions, %q", ask.count()-before-1, out)
	}
}
