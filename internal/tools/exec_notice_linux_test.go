package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestExecGoCacheNoticeOnce: when the user's Go build cache cannot be
// overlaid (here it lies in the workspace's hidden .catbuddy/), the
// command's output carries no word of it; the result of the first
// command that runs go in a Go project says so, once, and no command of
// a project without go.mod does.
func TestExecGoCacheNoticeOnce(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Namespaces, "private mount namespaces", info.Summary)
	testenv.NeedsTool(t, "go", "the go command in the sandbox", "install Go")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, goProject := range []bool{true, false} {
		tc, root := execToolContext(t, ExecOptions{})
		userCache := filepath.Join(root, ".catbuddy", "gocache")
		writeTestFile(t, filepath.Join(userCache, "README"), "a build cache\n")
		t.Setenv("GOCACHE", userCache)
		if goProject {
			writeTestFile(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.21\n")
		}
		r := NewRegistry()
		if err := r.Register(Exec(tc)); err != nil {
			t.Fatal(err)
		}
		run := filestate.NewContext(t.Context(), filestate.New())
		var notices []int
		for i, line := range []string{"echo hi", "go env GOCACHE", "go env GOCACHE && go version"} {
			res, err := runExecTool(t, run, r, map[string]any{"command": line})
			if err != nil || res.IsError || !strings.Contains(res.Output, "[exit code 0]") {
				t.Fatalf("%q: %+v, %v", line, res, err)
			}
			if strings.Contains(res.Output, "cb-ls sandbox:") {
				t.Errorf("%q: the notice is in the command's output:\n%s", line, res.Output)
			}
			if strings.Contains(res.Output, "[Go's build cache started cold: this build fills it, later ones are fast]") {
				notices = append(notices, i)
			}
		}
		want := []int{1}
		if !goProject {
			want = nil
		}
		if len(notices) != len(want) || (len(want) > 0 && notices[0] != want[0]) {
			t.Errorf("go project %v: the notice came on calls %v, want %v", goProject, notices, want)
		}
		os.Unsetenv("GOCACHE")
	}
}
