package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// askRecorder answers every question with answer and records them.
type askRecorder struct {
	mu     sync.Mutex
	answer Decision
	err    error
	asked  []ApprovalRequest
}

func (a *askRecorder) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.answer, a.err
}

func (a *askRecorder) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// approvalContext is a workspace with keep.txt and exec over it, asking
// approver (nil: nobody to ask).
func approvalContext(t *testing.T, opts ExecOptions, approver Approver) (*ToolContext, *Registry, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := guard.New([]string{root}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	tc := &ToolContext{Guard: g, Options: Options{Exec: opts}}
	if approver != nil {
		tc.Approver = approver
	}
	r := NewRegistry()
	if err := r.Register(Exec(tc)); err != nil {
		t.Fatal(err)
	}
	return tc, r, g.WorkRoot()
}

func execArgs(t *testing.T, ctx context.Context, r *Registry, args map[string]any) Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := r.Execute(ctx, "exec", raw)
	if err != nil {
		t.Fatalf("exec %v: %v", args, err)
	}
	return res
}

func keepIntact(t *testing.T, root string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "keep.txt"))
	if err != nil || string(b) != "keep\n" {
		t.Fatalf("keep.txt = %q, %v; want it untouched", b, err)
	}
}

// Without a sandbox that keeps the workspace read-only, commands known
// to only read run at once and everything else asks.
func TestExecAsksWithoutConfinement(t *testing.T) {
	ask := &askRecorder{answer: Rejected}
	_, r, root := approvalContext(t, ExecOptions{NoSandbox: true}, ask)
	for _, cmd := range []string{"ls", "cat keep.txt", "git status 2>/dev/null || true", "grep -rn keep . | head -1", "find . -name '*.txt'"} {
		res := execArgs(t, t.Context(), r, map[string]any{"command": cmd})
		if res.IsError || strings.Contains(res.Output, "rejected") {
			t.Errorf("%q: %+v, want it to run without a question", cmd, res)
		}
	}
	if ask.count() != 0 {
		t.Fatalf("read-only commands asked %d questions", ask.count())
	}
	for _, cmd := range []string{"rm keep.txt", "echo gone > keep.txt", "sed -i s/keep/lost/ keep.txt", "find . -delete", "touch new.txt"} {
		res := execArgs(t, t.Context(), r, map[string]any{"command": cmd})
		if !res.IsError || !strings.Contains(res.Output, "the user rejected running this command; nothing ran") {
			t.Errorf("%q rejected = %+v", cmd, res)
		}
		keepIntact(t, root)
	}
	if ask.count() != 5 {
		t.Fatalf("asked %d times, want 5", ask.count())
	}
	q := ask.asked[0]
	if !q.Unconfined || q.Write || q.Cwd != root || q.Command != "rm keep.txt" || q.Prefix != "rm" {
		t.Errorf("question = %+v", q)
	}
	for _, want := range []string{"rm keep.txt", "in " + root, "change files in the workspace", "no sandbox"} {
		if !strings.Contains(q.Message(), want) {
			t.Errorf("message %q lacks %q", q.Message(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Error("touch ran although rejected")
	}
}

// With the full sandbox a command that did not ask for write access runs
// at once, and the workspace stays read-only to it.
func TestExecConfinedRunsReadOnlyWithoutAsking(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Full, "full confinement", info.Summary)
	ask := &askRecorder{answer: Approved}
	_, r, root := approvalContext(t, ExecOptions{}, ask)
	for _, cmd := range []string{"rm keep.txt", "echo gone > keep.txt", "sed -i s/keep/lost/ keep.txt"} {
		res := execArgs(t, t.Context(), r, map[string]any{"command": cmd})
		if !strings.Contains(res.Output, "Read-only file system") || !strings.Contains(res.Output, "workspace read-only") {
			t.Errorf("%q = %q", cmd, res.Output)
		}
		keepIntact(t, root)
	}
	if ask.count() != 0 {
		t.Errorf("confined read-only commands asked %d times", ask.count())
	}
	res := execArgs(t, t.Context(), r, map[string]any{"command": "rm keep.txt", "write": true})
	if res.IsError || !strings.Contains(res.Output, "deleted  keep.txt") || !strings.Contains(res.Output, "workspace writable except .git") || ask.count() != 1 {
		t.Errorf("approved write = %q after %d questions", res.Output, ask.count())
	}
}

// TestExecReportsIgnoredOutputs: what a write command writes where a
// .gitignore hides it (a build's dist/) is counted, by the ignored entry
// it is under, instead of "none"; files it left alone and node_modules
// are not, and a written output the model had read is to be read again.
func TestExecReportsIgnoredOutputs(t *testing.T) {
	ask := &askRecorder{answer: Approved}
	_, r, root := approvalContext(t, ExecOptions{}, ask)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("dist/\n*.log\nnode_modules/\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "dist"), 0o755)
	for _, f := range []string{"dist/a.js", "dist/old.js"} {
		os.WriteFile(filepath.Join(root, f), []byte("old\n"), 0o644)
		past := time.Now().Add(-time.Hour)
		os.Chtimes(filepath.Join(root, f), past, past)
	}
	states := filestate.New()
	out := filepath.Join(root, "dist", "a.js")
	states.RecordRead(out, 0, 0, filestate.Stamp{Size: 4}, []byte("old\n"))
	ctx := filestate.NewContext(t.Context(), states)

	res := execArgs(t, ctx, r, map[string]any{
		"command": "mkdir -p dist/sub node_modules/p && echo 1 > dist/a.js && echo 2 > dist/sub/b.js && echo x > run.log && echo 3 > node_modules/p/i.js",
		"write":   true, "reason": "build",
	})
	if res.IsError {
		t.Fatalf("approved write = %+v", res)
	}
	if want := "Workspace files changed by the command: none but 3 ignored files changed (dist/… 2, run.log).\n"; !strings.Contains(res.Output, want) {
		t.Errorf("output lacks %q:\n%s", want, res.Output)
	}
	if !strings.HasPrefix(states.ChangedBy(out), "mkdir -p dist/sub") {
		t.Errorf("the FileState of the rewritten dist/a.js does not name the command: %q", states.ChangedBy(out))
	}
	res = execArgs(t, ctx, r, map[string]any{"command": "true", "write": true, "reason": "nothing"})
	if !strings.Contains(res.Output, "Workspace files changed by the command: none.\n") {
		t.Errorf("a command that wrote nothing:\n%s", res.Output)
	}
}

func TestExecWriteApproved(t *testing.T) {
	ask := &askRecorder{answer: Approved}
	tc, r, root := approvalContext(t, ExecOptions{}, ask)
	var heard []ExecChanges
	tc.OnExecChanges = func(_ context.Context, c ExecChanges) { heard = append(heard, c) }
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n.envrc\n"), 0o644)
	os.WriteFile(filepath.Join(root, "edit.txt"), []byte("a\n"), 0o644)
	os.MkdirAll(filepath.Join(root, ".vscode"), 0o755)
	big := filepath.Join(root, "big.bin")
	os.WriteFile(big, bytes.Repeat([]byte("x"), 1<<20+1), 0o644) // over the 1 MiB a file whose content a scan keeps

	states := filestate.New()
	keep := filepath.Join(root, "keep.txt")
	states.RecordRead(keep, 0, 0, filestate.Stamp{Size: 5}, []byte("keep\n"))
	ledger := filestate.NewLedger()
	edit := filepath.Join(root, "edit.txt")
	ledger.RecordWrite(edit, true, []byte("before the run\n"), []byte("a\n"), false)
	ctx := filestate.NewLedgerContext(filestate.NewContext(t.Context(), states), ledger)

	res := execArgs(t, ctx, r, map[string]any{
		"command": "rm keep.txt && echo b >> edit.txt && echo y >> big.bin && mkdir -p build gen && touch build/out gen/new.go && echo '{}' > .vscode/tasks.json && echo x > .envrc",
		"write":   true, "reason": "regenerate",
	})
	if res.IsError {
		t.Fatalf("approved write = %+v", res)
	}
	if ask.count() != 1 || !ask.asked[0].Write || ask.asked[0].Reason != "regenerate" {
		t.Fatalf("questions = %+v", ask.asked)
	}
	if !strings.Contains(ask.asked[0].Message(), "Reason: regenerate") {
		t.Errorf("message lacks the reason: %q", ask.asked[0].Message())
	}
	for _, want := range []string{
		"[approved by the user]",
		"Workspace files changed by the command (6;",
		"deleted  keep.txt", "changed  big.bin", "changed  edit.txt", "created  gen/new.go",
		"created  .vscode/tasks.json  (runs later", "created  .envrc  (runs later",
		"Also 1 ignored file changed (build/…).",
	} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "build/out") {
		t.Errorf("a gitignored file was reported:\n%s", res.Output)
	}
	if states.WasRead(keep) {
		t.Error("the FileState of the deleted keep.txt was not dropped")
	}
	if len(heard) != 1 || len(heard[0].Files) != 6 || heard[0].Files[0].Path == "" {
		t.Fatalf("listener heard %+v", heard)
	}
	// The run's ledger: created files are undone by deleting them, a file
	// a tool wrote earlier keeps its content from before the run, the
	// others get the content kept before the command ran, and a file over
	// the budget is named as not restorable.
	byPath := map[string]filestate.LedgerEntry{}
	for _, e := range ledger.Files() {
		byPath[e.Path] = e
	}
	if e := byPath[filepath.Join(root, "gen", "new.go")]; e.Existed || e.Unrestorable {
		t.Errorf("created file in the ledger: %+v", e)
	}
	if e := byPath[edit]; string(e.Prior) != "before the run\n" || e.Known || e.Unrestorable {
		t.Errorf("earlier-written file in the ledger: %+v", e)
	}
	if e := byPath[keep]; string(e.Prior) != "keep\n" || !e.Existed || e.Known || e.Unrestorable {
		t.Errorf("deleted file in the ledger: %+v", e)
	}
	if e := byPath[big]; !e.Unrestorable || !strings.Contains(e.Why, "larger than 1 MiB") || len(e.Prior) != 0 {
		t.Errorf("file over the budget in the ledger: %+v", e)
	}
	if e, ok := byPath[filepath.Join(root, ".envrc")]; !ok || e.Existed {
		t.Errorf("created runs-later file in the ledger: %+v %v", e, ok)
	}
}

func TestExecAlwaysAllow(t *testing.T) {
	ask := &askRecorder{answer: AlwaysApproved}
	_, r, root := approvalContext(t, ExecOptions{}, ask)
	res := execArgs(t, t.Context(), r, map[string]any{"command": "touch a.txt", "write": true})
	if res.IsError || !strings.Contains(res.Output, `always allows "touch"`) {
		t.Fatalf("first = %+v", res)
	}
	res = execArgs(t, t.Context(), r, map[string]any{"command": "touch b.txt", "write": true})
	if res.IsError || !strings.Contains(res.Output, `allowed by the rule "touch"`) || ask.count() != 1 {
		t.Fatalf("second = %+v after %d questions", res, ask.count())
	}
	res = execArgs(t, t.Context(), r, map[string]any{"command": "touch c.txt; rm keep.txt", "write": true})
	if ask.count() != 2 || !strings.Contains(res.Output, "[approved by the user]") {
		t.Fatalf("a line with another command was not asked about: %+v", res)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestExecApprovalSettings(t *testing.T) {
	t.Run("readOnly refuses without asking", func(t *testing.T) {
		ask := &askRecorder{answer: Approved}
		_, r, root := approvalContext(t, ExecOptions{Approval: ApprovalReadOnly}, ask)
		res := execArgs(t, t.Context(), r, map[string]any{"command": "rm keep.txt", "write": true})
		if !res.IsError || !strings.Contains(res.Output, "tools.exec.approval is readOnly") {
			t.Errorf("write = %+v", res)
		}
		_, r2, root2 := approvalContext(t, ExecOptions{Approval: ApprovalReadOnly, NoSandbox: true}, ask)
		res = execArgs(t, t.Context(), r2, map[string]any{"command": "rm keep.txt"})
		if !res.IsError || !strings.Contains(res.Output, "only commands known to only read") {
			t.Errorf("unconfined = %+v", res)
		}
		keepIntact(t, root2)
		if res := execArgs(t, t.Context(), r, map[string]any{"command": "cat keep.txt"}); res.IsError {
			t.Errorf("read = %+v", res)
		}
		keepIntact(t, root)
		if ask.count() != 0 {
			t.Errorf("readOnly asked %d times", ask.count())
		}
	})
	t.Run("allowAll runs without asking", func(t *testing.T) {
		ask := &askRecorder{answer: Rejected}
		_, r, root := approvalContext(t, ExecOptions{Approval: ApprovalAllowAll}, ask)
		res := execArgs(t, t.Context(), r, map[string]any{"command": "rm keep.txt", "write": true})
		if res.IsError || !strings.Contains(res.Output, "deleted  keep.txt") || ask.count() != 0 {
			t.Errorf("allowAll = %+v, %d questions", res, ask.count())
		}
		if _, err := os.Stat(filepath.Join(root, "keep.txt")); err == nil {
			t.Error("keep.txt survived allowAll rm")
		}
	})
	t.Run("allow rule", func(t *testing.T) {
		ask := &askRecorder{answer: Rejected}
		_, r, _ := approvalContext(t, ExecOptions{Allow: []string{"touch"}}, ask)
		if res := execArgs(t, t.Context(), r, map[string]any{"command": "touch x", "write": true}); res.IsError || ask.count() != 0 {
			t.Errorf("allowed = %+v", res)
		}
	})
	t.Run("deny rule wins over allowAll", func(t *testing.T) {
		ask := &askRecorder{answer: Approved}
		_, r, root := approvalContext(t, ExecOptions{Approval: ApprovalAllowAll, Deny: []string{"rm"}}, ask)
		res := execArgs(t, t.Context(), r, map[string]any{"command": "true && rm keep.txt", "write": true})
		if !res.IsError || !strings.Contains(res.Output, `refused by the rule "rm" in tools.exec.deny`) {
			t.Errorf("denied = %+v", res)
		}
		keepIntact(t, root)
	})
	t.Run("nobody to ask", func(t *testing.T) {
		_, r, root := approvalContext(t, ExecOptions{}, nil)
		res := execArgs(t, t.Context(), r, map[string]any{"command": "rm keep.txt", "write": true})
		if !res.IsError || !strings.Contains(res.Output, "there is no one to ask") {
			t.Errorf("no approver = %+v", res)
		}
		keepIntact(t, root)
	})
	t.Run("asking failed", func(t *testing.T) {
		ask := &askRecorder{err: errors.New("no terminal")}
		_, r, root := approvalContext(t, ExecOptions{}, ask)
		res := execArgs(t, t.Context(), r, map[string]any{"command": "rm keep.txt", "write": true})
		if !res.IsError || !strings.Contains(res.Output, "could not ask the user to approve this command: no terminal") {
			t.Errorf("approver error = %+v", res)
		}
		keepIntact(t, root)
	})
	t.Run("network asks", func(t *testing.T) {
		ask := &askRecorder{answer: Rejected}
		_, r, _ := approvalContext(t, ExecOptions{}, ask)
		execArgs(t, t.Context(), r, map[string]any{"command": "ls", "network": true, "reason": "fetch modules"})
		if ask.count() != 1 || !ask.asked[0].Network || !strings.Contains(ask.asked[0].Message(), "use the network") {
			t.Errorf("network question = %+v", ask.asked)
		}
	})
}

func TestApprovalActions(t *testing.T) {
	req := ApprovalRequest{Command: "go generate ./...", Prefix: "go generate"}
	if got := strings.Join(req.Actions(), "|"); got != `Reject|Run|Always allow "go generate"` {
		t.Errorf("actions = %s", got)
	}
	for title, want := range map[string]Decision{"Run": Approved, `Always allow "go generate"`: AlwaysApproved, "Reject": Rejected, "": Rejected, "run": Rejected} {
		if got := req.DecisionFor(title); got != want {
			t.Errorf("DecisionFor(%q) = %v, want %v", title, got, want)
		}
	}
	if got := strings.Join((ApprovalRequest{Command: "a && b"}).Actions(), "|"); got != "Reject|Run" {
		t.Errorf("actions without a prefix = %s", got)
	}
}
