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
	var visited atomic.Int64
	_, err = Walk(ctx, start, Options{Workers: 2}, func(_ int, _ *safefile.Dir, e Entry) {
		if e.Type.IsRegular() && visited.Add(1) == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Walk = %v, want context.Canceled", err)
	}
	// The other worker may finish the file it holds; nothing more.
	if n := visited.Load(); n > 2 {
		t.Errorf("visited %d files after cancelling at the first", n)
	}
}
