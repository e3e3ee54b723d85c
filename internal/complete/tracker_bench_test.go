package complete

import (
	"context"
	"testing"
)

// BenchmarkTrackerChanged is the keystroke path's share of completions:
// recording an edit, alone and superseding a pending request.
func BenchmarkTrackerChanged(b *testing.B) {
	b.Run("idle", func(b *testing.B) {
		t := NewTracker()
		_, done := t.Begin(context.Background(), "file:///b.go")
		done()
		for i := 0; b.Loop(); i++ {
			t.Changed("file:///a.go", i%3)
		}
	})
	b.Run("superseding", func(b *testing.B) {
		t := NewTracker()
		ctx := context.Background()
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			_, done := t.Begin(ctx, "file:///a.go")
			b.StartTimer()
			t.Changed("file:///a.go", i%3)
			b.StopTimer()
			done()
			b.StartTimer()
		}
	})
}
