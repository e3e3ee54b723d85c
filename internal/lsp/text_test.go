package lsp

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// refOffset is a deliberately simple reference for Text.Offset in UTF-16.
func refOffset(text string, p protocol.Position) int {
	lines := strings.SplitAfter(text, "\n")
	if int(p.Line) >= len(lines) {
		return len(text)
	}
	off := 0
	for _, l := range lines[:p.Line] {
		off += len(l)
	}
	line := strings.TrimSuffix(strings.TrimSuffix(lines[p.Line], "\n"), "\r")
	u := 0
	for i, r := range line {
		n := len(utf16.Encode([]rune{r}))
		if u+n > int(p.Character) {
			return off + i
		}
		u += n
	}
	return off + len(line)
}

var alphabet = []string{"a", "b", "\n", "\r\n", "😀", "日", "é", " ", "\t"}

func randText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// TestTextRandomEdits applies random position-based edits to a Text and
// to a plain string and compares them after every step, with small chunk
// boundaries exercised by a long document.
func TestTextRandomEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 8; round++ {
		ref := randText(r, 200+r.IntN(8000))
		txt := NewText([]byte(ref))
		for step := 0; step < 150; step++ {
			lines := strings.Count(ref, "\n")
			p1 := protocol.Position{Line: uint32(r.IntN(lines + 2)), Character: uint32(r.IntN(12))}
			p2 := protocol.Position{Line: p1.Line + uint32(r.IntN(3)), Character: uint32(r.IntN(12))}
			s, e := refOffset(ref, p1), refOffset(ref, p2)
			if s > e {
				s, e = e, s
			}
			gs, ge := txt.Offset(p1, protocol.PositionEncodingKindUTF16), txt.Offset(p2, protocol.PositionEncodingKindUTF16)
			if gs > ge {
				gs, ge = ge, gs
			}
			if gs != s || ge != e {
				t.Fatalf("round %d step %d: offsets of %v,%v = %d,%d, want %d,%d", round, step, p1, p2, gs, ge, s, e)
			}
			ins := randText(r, r.IntN(3)*r.IntN(40))
			if r.IntN(50) == 0 {
				ins = randText(r, 3*chunkTarget) // forces splits
			}
			ref = ref[:s] + ins + ref[e:]
			txt.Replace(s, e, ins)
			if txt.Len() != len(ref) || txt.Lines() != strings.Count(ref, "\n") {
				t.Fatalf("round %d step %d: len %d lines %d, want %d %d", round, step, txt.Len(), txt.Lines(), len(ref), strings.Count(ref, "\n"))
			}
		}
		if got := string(txt.Bytes()); got != ref {
			t.Fatalf("round %d: content differs", round)
		}
		if !txt.Equal([]byte(ref)) || txt.Equal([]byte(ref+"x")) {
			t.Fatalf("round %d: Equal is wrong", round)
		}
		for _, c := range txt.chunks {
			if len(c.b) == 0 || len(c.b) > chunkMax || c.nl != bytes.Count(c.b, nl) {
				t.Fatalf("round %d: bad chunk (len %d, nl %d)", round, len(c.b), c.nl)
			}
			if c.index {
				for _, p := range c.nlpos {
					if c.b[p] != '\n' {
						t.Fatalf("round %d: stale line index", round)
					}
				}
				if len(c.nlpos) != c.nl {
					t.Fatalf("round %d: line index has %d entries for %d newlines", round, len(c.nlpos), c.nl)
				}
			}
		}
	}
}

func TestTextDeleteEverything(t *testing.T) {
	txt := NewText([]byte(strings.Repeat("xy\n", 50000)))
	txt.Replace(0, txt.Len(), "")
	if txt.Len() != 0 || txt.Lines() != 0 || len(txt.Bytes()) != 0 {
		t.Fatalf("after deleting everything: len %d lines %d", txt.Len(), txt.Lines())
	}
	txt.Replace(0, 0, "again\n")
	if string(txt.Bytes()) != "again\n" || txt.Lines() != 1 {
		t.Fatalf("after reinsert: %q", txt.Bytes())
	}
}

func TestPositionOfRoundTrip(t *testing.T) {
	content := []byte("a😀b\r\n日本\n\nend")
	for _, enc := range []protocol.PositionEncodingKind{"utf-16", "utf-8", "utf-32"} {
		txt := NewText(content)
		for off := 0; off <= len(content); off++ {
			if off < len(content) && (content[off]&0xC0) == 0x80 {
				continue // inside a rune
			}
			if off > 0 && content[off-1] == '\r' {
				continue // between \r and \n: not a position
			}
			p := PositionOf(content, off, enc)
			if got := OffsetOf(content, p, enc); got != off {
				t.Errorf("%s: offset %d → %v → %d", enc, off, p, got)
			}
			if got := txt.Offset(p, enc); got != off {
				t.Errorf("%s: Text: offset %d → %v → %d", enc, off, p, got)
			}
		}
	}
	if p := PositionOf(content, 5, "utf-16"); p != (protocol.Position{Line: 0, Character: 3}) {
		t.Errorf("after the emoji: %v, want 0:3 (a surrogate pair is two units)", p)
	}
}

// BenchmarkTextInsert measures one typed character in the middle of a
// document: the didChange cost without JSON. The 1 MB and 10 MB figures
// must be about equal (docs/lsp.md).
func BenchmarkTextInsert(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			line := "\tfmt.Println(\"hello, world\") // 😀 comment\n"
			txt := NewText([]byte(strings.Repeat(line, size/len(line))))
			mid := protocol.Position{Line: uint32(txt.Lines() / 2), Character: 5}
			b.ResetTimer()
			cpu0 := int64(testenv.CPUTime())
			for i := 0; b.Loop(); i++ {
				off := txt.Offset(mid, protocol.PositionEncodingKindUTF16)
				txt.Replace(off, off, "x")
			}
			b.ReportMetric(float64(int64(testenv.CPUTime())-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
