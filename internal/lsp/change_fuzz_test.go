package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// badRanges are wire ranges the decoder must not turn into something
// else: each one makes the change unusable.
var badRanges = []string{
	`{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}}`,
	`{"start":{"line":"0","character":0},"end":{"line":0,"character":0}}`,
	`{"start":{"line":0.5,"character":0},"end":{"line":0,"character":0}}`,
	`{"start":{"line":0,"character":1e2},"end":{"line":0,"character":0}}`,
	`{"start":{"line":4294967296,"character":0},"end":{"line":0,"character":0}}`,
	`{"start":{"line":0},"end":{"line":0,"character":0}}`,
	`{"end":{"line":0,"character":0}}`,
	`{}`,
	`null`,
	`"0:0"`,
	`[0,0,0,0]`,
}

// inserts are the texts the fuzzer types: ASCII, line ends, multi-byte
// and surrogate-pair runes.
var inserts = []string{"x", "\n", "\r\n", "é", "日本", "😀", "", "ab\ncd"}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzDidChange drives the didChange handler with sequences of valid and
// invalid changes (bad ranges, end before start; lines past the end, which
// clamp; whole-document changes) and checks the overlay against a reference
// kept with the flat-buffer mapper (OffsetOf): after every notification the
// buffer either equals the reference text or is marked out of sync, and it
// is out of sync only when a change was invalid since the last full sync.
func FuzzDidChange(f *testing.F) {
	f.Add("one\ntwo\n", []byte{0, 0, 1, 0, 2, 'x', 2, 3, 0, 1, 0, 1, 0})
	f.Add("a😀b\r\nc\n", []byte{0, 0, 2, 0, 3, 'y', 1, 8, 1, 0, 0, 5, 'z'})
	f.Add("", []byte{0, 0, 0, 0, 0, 'q', 0, 1, 0, 1, 0, 'r'})
	f.Add("x\ny\nz", []byte{3, 0, 0, 9, 9, 'w', 1, 2, 2, 1, 0, 'v'})
	f.Fuzz(func(t *testing.T, text string, ops []byte) {
		s := newServer(Options{})
		u := fileuri.FromPath("/fuzz/doc.txt")
		if _, err := s.overlay.Open(u, "plaintext", 1, text); err != nil {
			t.Fatal(err)
		}
		ref := []byte(text)
		refBad := false
		for v := int32(2); len(ops) >= 6; v++ {
			op := ops[:6]
			ops = ops[6:]
			insert := inserts[int(op[5])%len(inserts)]
			var change string
			switch op[0] % 4 {
			case 0, 1: // a partial change, maybe past the end or reversed
				start := protocol.Position{Line: uint32(op[1] % 8), Character: uint32(op[2] % 12)}
				end := protocol.Position{Line: uint32(op[3] % 8), Character: uint32(op[4] % 12)}
				change = fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"text":%s}`,
					start.Line, start.Character, end.Line, end.Character, jsonString(insert))
				if refBad {
					break
				}
				// Past the end clamps, in OffsetOf as in the overlay.
				so, eo := OffsetOf(ref, start, protocol.PositionEncodingKindUTF16), OffsetOf(ref, end, protocol.PositionEncodingKindUTF16)
				if so > eo {
					refBad = true
					break
				}
				ref = append(append(append([]byte(nil), ref[:so]...), insert...), ref[eo:]...)
			case 2: // a whole-document change heals
				change = fmt.Sprintf(`{"text":%s}`, jsonString(strings.Repeat(insert, int(op[1]%5))))
				ref = []byte(strings.Repeat(insert, int(op[1]%5)))
				refBad = false
			case 3: // a range that is not one
				change = fmt.Sprintf(`{"range":%s,"text":%s}`, badRanges[int(op[1])%len(badRanges)], jsonString(insert))
				refBad = true
			}
			raw := fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%d},"contentChanges":[%s]}`, u, v, change)
			if !json.Valid([]byte(raw)) {
				t.Fatalf("test built invalid JSON: %s", raw)
			}
			_, _ = s.didChange(t.Context(), []byte(raw))
			b, _ := s.overlay.Get(u)
			inSync := b.InSync()
			got := b.Snapshot().Content
			switch {
			case inSync && refBad:
				t.Fatalf("after %s: buffer in sync (%q) but the change was invalid", change, got)
			case !inSync && !refBad:
				t.Fatalf("after %s: buffer out of sync but every change was valid (reference %q)", change, ref)
			case inSync && !bytes.Equal(got, ref):
				t.Fatalf("after %s: buffer %q, reference %q", change, got, ref)
			}
		}
	})
}
