package search

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
)

// TestLiteralFinder holds literalFinder to bytes.Index: random buffers
// over a small alphabet (so the rare byte is often common, and the
// fallback runs), literals cut from them and literals that are absent.
func TestLiteralFinder(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for _, alphabet := range []string{"ab", "aC.x", "context.C \n", "é中😀xy"} {
		for range 300 {
			buf := make([]byte, rnd.Intn(400))
			for i := range buf {
				buf[i] = alphabet[rnd.Intn(len(alphabet))]
			}
			var lit []byte
			if len(buf) > 0 && rnd.Intn(3) > 0 {
				i := rnd.Intn(len(buf))
				lit = buf[i:min(len(buf), i+1+rnd.Intn(12))]
			} else {
				lit = []byte(alphabet[:min(len(alphabet), 1+rnd.Intn(4))] + "Z")
			}
			f := newLiteralFinder(lit)
			if got, want := f.index(buf), bytes.Index(buf, lit); got != want {
				t.Fatalf("index(%q) in %q = %d, bytes.Index says %d", lit, buf, got, want)
			}
		}
	}
	f := newLiteralFinder([]byte("context.Context"))
	if f.rare != 'C' {
		t.Errorf("rarest byte of context.Context: %q, want 'C'", f.rare)
	}
	src := strings.Repeat("func f(ctx context.Cont) {}\n", 100) + "x context.Context y"
	if got, want := f.index([]byte(src)), strings.Index(src, "context.Context"); got != want {
		t.Errorf("index = %d, want %d", got, want)
	}
}
