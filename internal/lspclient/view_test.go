package lspclient

import (
	"context"
	"testing"
	"time"
)

// TestViewGate: questions of one run share the server's view; one of
// another run waits until they are answered, and a question of the
// first run that comes while it waits waits its turn too.
func TestViewGate(t *testing.T) {
	var g viewGate
	ctx := t.Context()
	if err := g.enter(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := g.enter(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	inB := make(chan struct{})
	go func() {
		if err := g.enter(ctx, "b"); err == nil {
			close(inB)
		}
	}()
	// Wait until b is queued.
	for {
		g.mu.Lock()
		w := g.waiting
		g.mu.Unlock()
		if w == 1 {
			break
		}
		select {
		case <-inB:
			t.Fatal("b entered while a holds the view")
		case <-time.After(time.Millisecond): // polling the queue
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := g.enter(short, "a"); err == nil {
		t.Fatal("a third question of a jumped the queue ahead of b")
	}
	g.leave()
	select {
	case <-inB:
		t.Fatal("b entered while a still holds the view")
	default:
	}
	g.leave()
	<-inB
	g.mu.Lock()
	id, n := g.id, g.holders
	g.mu.Unlock()
	if id != "b" || n != 1 {
		t.Fatalf("the gate shows %q to %d questions, want b to 1", id, n)
	}
	g.leave()
}
