package changeset

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// needsOverlay ends a test that needs the copy-on-write layer where the
// system has none.
func needsOverlay(t testing.TB) {
	t.Helper()
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Overlay, "the copy-on-write layer (overlayfs in a user namespace)", info.OverlayReason)
}

// execIn runs command with the exec tool in the run's view, as the
// agent would, with nobody to ask: a question would fail the command.
func (fx *fixture) exec(command string, write bool) string {
	fx.t.Helper()
	res := fx.execArgs(map[string]any{"command": command, "write": write})
	if res.IsError {
		fx.t.Fatalf("exec %q: %s", command, res.Output)
	}
	return res.Output
}

// execArgs runs the exec tool with args in the run's view.
func (fx *fixture) execArgs(args map[string]any) tools.Result {
	fx.t.Helper()
	tc := &tools.ToolContext{Guard: fx.g, Workspace: tools.DiskWorkspace{}}
	reg := tools.NewRegistry()
	if err := reg.Register(tools.Exec(tc)); err != nil {
		fx.t.Fatal(err)
	}
	ctx := tools.WithRunView(context.Background(), tools.RunView{
		Workspace: fx.view, Layer: fx.set.Layer(tools.DiskWorkspace{}), News: fx.set.TakeNews})
	raw, _ := json.Marshal(args)
	res, err := reg.Execute(ctx, "exec", raw)
	if err != nil {
		fx.t.Fatal(err)
	}
	return res
}

func TestExecRmRfIsPendingDeletions(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"calc.go": calc, "sub/a.txt": "a\n", "sub/deep/b.txt": "b\n", ".git/HEAD": "ref: refs/heads/main\n"})
	// With the network the command reaches beyond the layer: the guard
	// refuses the deletion as it does without one.
	if res := fx.execArgs(map[string]any{"command": "rm -rf ./*", "network": true}); !res.IsError ||
		!strings.Contains(res.Output, "deletes everything in the working directory") {
		t.Fatalf("rm -rf ./* with the network was not refused: %s", res.Output)
	}
	if len(fx.set.Files()) != 0 {
		t.Fatalf("a refused command left pending changes: %v", fx.set.Files())
	}
	// Over the layer the guard lets it run: nothing reaches the disk.
	out := fx.exec("rm -rf ./* && ls -A", true)
	if !strings.Contains(out, "Pending the user's review") || !strings.Contains(out, "deleted calc.go") {
		t.Fatalf("the result does not say what is pending:\n%s", out)
	}
	if strings.Contains(out, "calc.go\n") || strings.Contains(out, "sub\n") {
		t.Fatalf("the command still saw the files it deleted:\n%s", out)
	}
	for rel, want := range map[string]string{"calc.go": calc, "sub/a.txt": "a\n", "sub/deep/b.txt": "b\n", ".git/HEAD": "ref: refs/heads/main\n"} {
		if got := fx.disk(rel); got != want {
			t.Fatalf("%s on disk = %q after rm -rf inside exec", rel, got)
		}
	}
	var deleted []string
	for _, f := range fx.set.Files() {
		if f.Kind != KindDeleted {
			t.Fatalf("%s is %s, want deleted", f.Path.Rel, f.Kind)
		}
		deleted = append(deleted, f.Path.Rel)
	}
	if want := []string{"calc.go", "sub/a.txt", "sub/deep/b.txt"}; !slices.Equal(deleted, want) {
		t.Fatalf("pending deletions %v, want %v", deleted, want)
	}
	// The run sees its deletions; discarding them brings the files back.
	if got := fx.read(fx.view, "sub/a.txt"); !strings.HasPrefix(got, "<") {
		t.Fatalf("the run still reads a deleted file: %q", got)
	}
	if _, err := fx.set.Discard(Selection{}); err != nil {
		t.Fatal(err)
	}
	if got := fx.read(fx.view, "sub/a.txt"); got != "a\n" {
		t.Fatalf("after the discard the run reads %q", got)
	}
}

func TestExecSeesPendingEditsAndJoinsTheSet(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"calc.go": calc})
	fx.edit(fx.view, "calc.go", "return 1", "return 10")
	out := fx.exec("grep -c 'return 10' calc.go && sed -i 's/return 2/return 20/' calc.go && echo made > gen.txt", true)
	if !strings.HasPrefix(withoutSandboxNotes(out), "1\n") {
		t.Fatalf("the command did not see the pending edit:\n%s", out)
	}
	if fx.disk("calc.go") != calc || !strings.HasPrefix(fx.disk("gen.txt"), "<") {
		t.Fatal("the command reached the disk")
	}
	files := fx.set.Files()
	if len(files) != 2 || files[0].Path.Rel != "calc.go" || len(files[0].Hunks) != 2 || files[1].Path.Rel != "gen.txt" || files[1].Kind != KindCreated {
		t.Fatalf("files = %+v", files)
	}
	if _, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(calc, "return 1", "return 10", 1), "return 2", "return 20", 1)
	if fx.disk("calc.go") != want || fx.disk("gen.txt") != "made\n" {
		t.Fatalf("after keep: calc.go %q, gen.txt %q", fx.disk("calc.go"), fx.disk("gen.txt"))
	}
}

func TestExecGroupsIgnoredOutputs(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"package.json": "{}\n", ".gitignore": "build/\n"})
	// As npm install and go generate do: many files under an ignored
	// directory (node_modules/ is ignored even without a rule), and one
	// source file beside them.
	out := fx.exec("mkdir -p node_modules/a node_modules/b build && for i in 1 2 3; do echo $i > node_modules/a/f$i.js; echo $i > node_modules/b/g$i.js; echo $i > build/o$i; done && echo gen > gen.go", true)
	if !strings.Contains(out, "node_modules/ (6 files)") || !strings.Contains(out, "build/ (3 files)") {
		t.Fatalf("the result does not group the outputs:\n%s", out)
	}
	var got []string
	for _, f := range fx.set.Files() {
		if f.Group != nil {
			got = append(got, f.Path.Rel+":"+string(rune('0'+f.Group.Count)))
		} else {
			got = append(got, f.Path.Rel)
		}
	}
	if want := []string{"build:3", "gen.go", "node_modules:6"}; !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	if fx.set.Count() != 3 {
		t.Fatalf("count = %d, want 3 (two groups and one hunk)", fx.set.Count())
	}
	var nm File
	for _, f := range fx.set.Files() {
		if f.Path.Rel == "node_modules" {
			nm = f
		}
	}
	res, err := fx.set.Keep(context.Background(), Selection{Hunks: []string{nm.Group.ID}}, tools.DiskWorkspace{})
	if err != nil || len(res.Kept) != 1 {
		t.Fatalf("keep the group = %+v, %v", res, err)
	}
	if fx.disk("node_modules/b/g2.js") != "2\n" || !strings.HasPrefix(fx.disk("build/o1"), "<") {
		t.Fatal("keeping node_modules/ did not write exactly it")
	}
}

func TestExecLeavesGitAndStateAlone(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n", ".git/HEAD": "ref: refs/heads/main\n"})
	fx.edit(fx.view, "a.txt", "a", "A")
	manifest := filepath.Join(fx.runDir("run-1"), manifestName)
	before, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tools.ToolContext{Guard: fx.g, Workspace: tools.DiskWorkspace{}}
	reg := tools.NewRegistry()
	_ = reg.Register(tools.Exec(tc))
	ctx := tools.WithRunView(context.Background(), tools.RunView{Workspace: fx.view, Layer: fx.set.Layer(tools.DiskWorkspace{})})
	args, _ := json.Marshal(map[string]any{"command": "(cd .git && echo x > HEAD); for d in .c*; do echo y > $d/runs/run-1/manifest.json; rm -rf $d; done; echo done", "write": true})
	res, err := reg.Execute(ctx, "exec", args)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "done") {
		t.Fatalf("the command did not run:\n%s", res.Output)
	}
	t.Logf("%s", res.Output)
	if got := fx.disk(".git/HEAD"); got != "ref: refs/heads/main\n" {
		t.Fatalf(".git/HEAD = %q", got)
	}
	after, err := os.ReadFile(manifest)
	if err != nil || string(after) != string(before) {
		t.Fatalf("the set's manifest changed: %v", err)
	}
	for _, f := range fx.set.Files() {
		if strings.HasPrefix(f.Path.Rel, ".git") || strings.HasPrefix(f.Path.Rel, ".catbuddy") {
			t.Fatalf("%s joined the set", f.Path.Rel)
		}
	}
}

func TestExecWithoutLayerRunsNothing(t *testing.T) {
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	fx.edit(fx.view, "a.txt", "a", "A")
	tc := &tools.ToolContext{Guard: fx.g, Workspace: tools.DiskWorkspace{}}
	reg := tools.NewRegistry()
	_ = reg.Register(tools.Exec(tc))
	// Edits pending and no layer (no overlay here): a command would see
	// the workspace without them, so none runs.
	ctx := tools.WithRunView(context.Background(), tools.RunView{Workspace: fx.view})
	args, _ := json.Marshal(map[string]any{"command": "cat a.txt > b.txt", "write": true})
	res, err := reg.Execute(ctx, "exec", args)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Output, "nothing ran") {
		t.Fatalf("exec without a layer: %s", res.Output)
	}
	if !strings.HasPrefix(fx.disk("b.txt"), "<") {
		t.Fatal("the command ran")
	}
}

// withoutSandboxNotes drops the lines the sandbox's helper writes about
// its own set-up ("cb-ls sandbox: the Go build cache starts cold …",
// where the machine's cache is out of the sandbox's sight), so that a
// test can look at what the command itself printed first.
func withoutSandboxNotes(out string) string {
	for strings.HasPrefix(out, "cb-ls sandbox: ") {
		_, out, _ = strings.Cut(out, "\n")
	}
	return out
}
