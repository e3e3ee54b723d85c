package changeset

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// bufferWorkspace is an editor's Workspace in miniature: open buffers
// (some with unsaved text) over the disk.
type bufferWorkspace struct {
	tools.DiskWorkspace
	g       *guard.PathGuard
	buffers map[string]string // rel → unsaved text
}

func (w bufferWorkspace) Read(ctx context.Context, p guard.Path) (tools.Document, error) {
	if text, ok := w.buffers[p.Rel]; ok {
		return tools.Document{Content: []byte(text), Open: true}, nil
	}
	return w.DiskWorkspace.Read(ctx, p)
}

func (w bufferWorkspace) OpenBuffers(context.Context) []guard.Path {
	var out []guard.Path
	for rel := range w.buffers {
		p, _ := w.g.Resolve(rel)
		out = append(out, p)
	}
	return out
}

// execUnder runs command over the set's layer with under as the
// front end's Workspace, and approver asked what must be asked.
func (fx *fixture) execUnder(under tools.Workspace, approver tools.Approver, args map[string]any) tools.Result {
	fx.t.Helper()
	tc := &tools.ToolContext{Guard: fx.g, Workspace: under, Approver: approver}
	reg := tools.NewRegistry()
	_ = reg.Register(tools.Exec(tc))
	ctx := tools.WithRunView(context.Background(), tools.RunView{Workspace: fx.set.Workspace(under), Layer: fx.set.Layer(under)})
	b, _ := json.Marshal(args)
	res, err := reg.Execute(ctx, "exec", b)
	if err != nil {
		fx.t.Fatal(err)
	}
	return res
}

// A command sees the editor's unsaved text, which is not the run's
// change unless the command changes it; then its base is that text.
func TestExecSeesUnsavedBuffers(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"calc.go": calc, "notes.txt": "saved\n"})
	under := bufferWorkspace{g: fx.g, buffers: map[string]string{"notes.txt": "unsaved\n", "calc.go": calc}}
	res := fx.execUnder(under, nil, map[string]any{"command": "cat notes.txt"})
	if !strings.HasPrefix(withoutSandboxNotes(res.Output), "unsaved\n") {
		t.Fatalf("the command did not see the unsaved buffer:\n%s", res.Output)
	}
	if n := len(fx.set.Files()); n != 0 {
		t.Fatalf("reading a buffer made %d pending files", n)
	}
	if got := fx.disk("notes.txt"); got != "saved\n" {
		t.Fatalf("the disk changed: %q", got)
	}
	res = fx.execUnder(under, nil, map[string]any{"command": "echo more >> notes.txt", "write": true})
	files := fx.set.Files()
	if len(files) != 1 || files[0].Path.Rel != "notes.txt" || len(files[0].Hunks) != 1 || files[0].Hunks[0].NewText != "more\n" {
		t.Fatalf("after the command: %+v\n%s", files, res.Output)
	}
}

// A command that asks for the network is asked about, even over the
// layer; one that writes is not.
func TestExecOverLayerAsksOnlyForTheNetwork(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	var asked []tools.ApprovalRequest
	approver := tools.ApproverFunc(func(_ context.Context, r tools.ApprovalRequest) (tools.Decision, error) {
		asked = append(asked, r)
		return tools.Rejected, nil
	})
	res := fx.execUnder(tools.DiskWorkspace{}, approver, map[string]any{"command": "echo b > b.txt", "write": true, "reason": "make b"})
	if len(asked) != 0 || res.IsError {
		t.Fatalf("a write over the layer asked %v:\n%s", asked, res.Output)
	}
	res = fx.execUnder(tools.DiskWorkspace{}, approver, map[string]any{"command": "echo c > c.txt", "write": true, "network": true, "reason": "fetch"})
	if len(asked) != 1 || !asked[0].Network || !res.IsError {
		t.Fatalf("the network was not asked about (%v):\n%s", asked, res.Output)
	}
	var rels []string
	for _, f := range fx.set.Files() {
		rels = append(rels, f.Path.Rel)
	}
	if strings.Join(rels, ",") != "b.txt" {
		t.Fatalf("pending %v, want b.txt alone", rels)
	}
}
