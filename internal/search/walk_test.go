package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/safefile"
)

func TestWalkStopsWhenCancelled(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "-- d%02d/f%04d.txt --\nx\n", i%20, i)
	}
	dir := writeTree(t, b.String())
	g, err := guard.New([]string{dir}, guard.ModeProject)
	if err != nil {
		t.Fatal(err)
	}
	start, err := g.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	// Counted are the visits that begin once cancel has returned: the
	// other worker goes on while cancel runs, which on a loaded machine
	// can be many files.
	var visited, after atomic.Int64
	var cancelled atomic.Bool
	_, err = Walk(ctx, start, Options{Workers: 2}, func(_ int, _ *safefile.Dir, e Entry) {
		if !e.Type.IsRegular() {
			return
		}
		if cancelled.Load() {
			after.Add(1)
		}
		if visited.Add(1) == 1 {
			cancel()
			cancelled.Store(true)
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Walk = %v, want context.Canceled", err)
	}
	// The other worker may finish the file it holds; nothing more.
	if n := after.Load(); n > 1 {
		t.Errorf("visited %d files after the cancel (of %d in all)", n, visited.Load())
	}
}
