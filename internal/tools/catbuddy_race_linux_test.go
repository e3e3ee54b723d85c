package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
	"golang.org/x/sys/unix"
)

// TestCatbuddyRace swaps a directory with a symlink to .catbuddy/ in a
// tight loop (an atomic exchange of the two names) while the file tools
// read, write, edit, list, glob and grep through it, thousands of times.
// The guard's check and the open are moments apart, so without opening
// the checked object itself some calls would reach .catbuddy/. None may:
// no output shows its contents or names, and its files are unchanged.
// It runs with openat2 and again with the openat fallback of older kernels.
func TestCatbuddyRace(t *testing.T) {
	t.Run("openat2", raceCatbuddy)
	t.Run("openat", func(t *testing.T) {
		was := safefile.UseOpenat2(false)
		defer safefile.UseOpenat2(was)
		raceCatbuddy(t)
	})
}

func raceCatbuddy(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const secret = "CATBUDDY-SECRET"
	state := filepath.Join(dir, guard.StateDir)
	writeTestFile(t, filepath.Join(state, "secret.txt"), secret+"\n")
	writeTestFile(t, filepath.Join(state, "mcp.json"), "{}\n")
	writeTestFile(t, filepath.Join(state, "only-in-state.txt"), secret+"\n")
	writeTestFile(t, filepath.Join(dir, "d", "secret.txt"), "public SECRET\n")
	if err := os.Symlink(guard.StateDir, filepath.Join(dir, "swap")); err != nil {
		t.Fatal(err)
	}
	stateBefore := listNames(t, state)

	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	tc := &ToolContext{Guard: g, Workspace: DiskWorkspace{}}
	reg := NewRegistry()
	for _, f := range []Factory{ReadFile, WriteFile, EditFile, MultiEdit, ListDir, Glob, Grep} {
		if err := reg.Register(f(tc)); err != nil {
			t.Fatal(err)
		}
	}

	// The swapper: "d" is the real directory or the symlink, flipped
	// atomically as fast as the machine allows.
	stop := make(chan struct{})
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a, b := filepath.Join(dir, "d"), filepath.Join(dir, "swap")
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
			swaps.Add(1)
		}
	}()

	type call struct {
		name string
		args argMap
		n    int
	}
	calls := []call{
		{"read_file", argMap{"path": "d/secret.txt"}, 2000},
		{"write_file", argMap{"path": "d/mcp.json", "content": "PLANTED\n"}, 1000},
		{"edit_file", argMap{"path": "d/secret.txt", "old_string": "SECRET", "new_string": "SECRET!"}, 1000},
		{"multi_edit", argMap{"path": "d/secret.txt", "edits": []argMap{{"old_string": "SECRET", "new_string": "SECRET?"}}}, 500},
		{"list_dir", argMap{"path": "d"}, 1000},
		{"list_dir", argMap{"path": ".", "depth": 3}, 500},
		{"glob", argMap{"pattern": "**/*"}, 500},
		{"glob", argMap{"pattern": "d/*"}, 500},
		{"grep", argMap{"pattern": "SECRET", "path": "d"}, 500},
		{"grep", argMap{"pattern": "SECRET"}, 500},
	}
	outcomes := map[string]int{}
	for _, c := range calls {
		ctx := filestate.NewContext(t.Context(), filestate.New())
		for i := range c.n {
			if c.name == "write_file" {
				// A new name each time: every try creates a file.
				c.args["path"] = fmt.Sprintf("d/mcp-%d.json", i)
			}
			raw := mustMarshal(t, c.args)
			res, err := reg.Execute(ctx, c.name, raw)
			if err != nil {
				t.Fatalf("%s: run error: %v", c.name, err)
			}
			if strings.Contains(res.Output, secret) || strings.Contains(res.Output, "only-in-state") {
				t.Errorf("%s %v reached .catbuddy/: %s", c.name, c.args, res.Output)
			}
			if res.IsError {
				outcomes[c.name+" refused"]++
			} else {
				outcomes[c.name+" ok"]++
			}
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d swaps; outcomes: %v", swaps.Load(), outcomes)

	if b, _ := os.ReadFile(filepath.Join(state, "mcp.json")); string(b) != "{}\n" {
		t.Errorf(".catbuddy/mcp.json was written: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(state, "secret.txt")); string(b) != secret+"\n" {
		t.Errorf(".catbuddy/secret.txt was changed: %q", b)
	}
	if after := listNames(t, state); !slices.Equal(after, stateBefore) {
		t.Errorf(".catbuddy/ holds %v after the race, want %v", after, stateBefore)
	}
	if outcomes["read_file ok"] == 0 || swaps.Load() < 100 {
		t.Errorf("the race was not exercised (%d swaps, %d successful reads)", swaps.Load(), outcomes["read_file ok"])
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
