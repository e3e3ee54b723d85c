package safefile

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestLooksBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(1 + r.IntN(255)) // no NUL: invalid UTF-8 decides
	}
	long := strings.Repeat("héllo wörld ", 1000) // a multi-byte rune straddles 8 KB
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"empty", "", false},
		{"ascii", "package main\n", false},
		{"utf-8", "日本語のテキスト\n", false},
		{"NUL", "abc\x00def", true},
		{"NUL after 8 KB is not looked at", strings.Repeat("a", 9000) + "\x00", false},
		{"random bytes", string(noise), true},
		{"latin-1 prose", "Cr\xe8me br\xfbl\xe9e et caf\xe9 au lait, s'il vous pla\xeet.\n", false},
		{"rune cut at 8 KB", long, false},
	}
	for _, tt := range tests {
		if got := LooksBinary([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: LooksBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}
