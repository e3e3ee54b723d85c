package lsp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// sameAsGeneral checks a didChange the fast decoder accepted against the
// protocol package's decoder and the wire check: both must accept it and
// agree on every field.
func sameAsGeneral(t *testing.T, raw []byte) bool {
	t.Helper()
	u, version, changes, ok := fastDidChange(raw)
	if !ok {
		return false
	}
	var p protocol.DidChangeTextDocumentParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		t.Fatalf("fast decoder accepted %s, the general one refuses it: %v", raw, err)
	}
	if bad, err := checkChanges(raw, p.ContentChanges); err != nil {
		t.Fatalf("fast decoder accepted %s, the wire check refuses change %d: %v", raw, bad, err)
	}
	if string(u) != string(p.TextDocument.URI) || version != p.TextDocument.Version {
		t.Fatalf("%s: fast %s v%d, general %s v%d", raw, u, version, p.TextDocument.URI, p.TextDocument.Version)
	}
	if len(changes) != len(p.ContentChanges) {
		t.Fatalf("%s: fast %d changes, general %d", raw, len(changes), len(p.ContentChanges))
	}
	for i := range changes {
		a, b := changes[i], p.ContentChanges[i]
		if pa, ok := a.(*protocol.TextDocumentContentChangePartial); ok {
			pb, ok := b.(*protocol.TextDocumentContentChangePartial)
			if !ok || pa.Range != pb.Range || pa.Text != pb.Text {
				t.Fatalf("%s: change %d: fast %+v, general %#v", raw, i, pa, b)
			}
			continue
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: change %d: fast %#v, general %#v", raw, i, a, b)
		}
	}
	return true
}

func TestFastDidChange(t *testing.T) {
	r := `{"start":{"line":3,"character":7},"end":{"character":9,"line":4}}`
	accept := []string{
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":` + r + `,"text":"x"}]}`,
		` { "contentChanges" : [ { "text" : "a\"b\\c\u00e9\ud83d\ude00\n" , "range" : ` + r + ` , "rangeLength" : 2 } ] , "textDocument" : { "version" : -5 , "uri" : "file:///a%20b.go" } } `,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"whole\ndocument"}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2147483647},"contentChanges":[{"range":` + r + `,"text":"日本"},{"text":""}]}`,
	}
	for _, raw := range accept {
		if !sameAsGeneral(t, []byte(raw)) {
			t.Errorf("fast decoder refused %s", raw)
		}
	}
	// Everything else goes to the general decoder, which reports it.
	var refuse []string
	for _, bad := range badRanges {
		refuse = append(refuse, `{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":`+bad+`,"text":"x"}]}`)
	}
	refuse = append(refuse,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"rangeLength":1,"text":"x"}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":`+r+`}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":`+r+`,"text":null}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":"2"},"contentChanges":[]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2147483648},"contentChanges":[]}`,
		`{"textDocument":{"uri":"file:///a.go"},"contentChanges":[]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[],"extra":1}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"Text":"x"}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"a`+"\x01"+`b"}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"a`+"\xff"+`b"}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"\x"}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"\u12"}]}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"x"}]} x`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"x"},]}`,
	)
	for _, raw := range refuse {
		if _, _, _, ok := fastDidChange([]byte(raw)); ok {
			t.Errorf("fast decoder accepted %s", raw)
		}
	}
}

// FuzzFastDidChange: whatever the fast decoder accepts, the general
// decoder accepts too, with the same meaning.
func FuzzFastDidChange(f *testing.F) {
	f.Add(`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":1}},"text":"x"}]}`)
	f.Add(`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"text":"\ud800\u0041\\"}]}`)
	f.Fuzz(func(t *testing.T, raw string) { sameAsGeneral(t, []byte(raw)) })
}

// escapedDocument is text that needs every kind of JSON escape, with
// multi-byte runes and surrogate pairs, long enough for many chunks.
func escapedDocument(size int) string {
	var b strings.Builder
	for k := 0; b.Len() < size; k++ {
		fmt.Fprintf(&b, "\tline %d: \"quoted\" \\ back\\slash naïve 中文 😀 \x01\x1f\r\n", k)
		b.WriteString(strings.Repeat("é", k%7) + "😀")
	}
	return b.String()
}

func TestFastDidOpen(t *testing.T) {
	for _, text := range []string{"", "plain ascii\n", escapedDocument(3 * chunkTarget), escapedDocument(40 * chunkTarget)} {
		raw, err := json.Marshal(map[string]any{"textDocument": map[string]any{
			"uri": "file:///tmp/x.go", "languageId": "go", "version": 7, "text": text}})
		if err != nil {
			t.Fatal(err)
		}
		u, lang, version, got, ok := fastDidOpen(raw)
		if !ok {
			t.Fatalf("fast decoder refused a didOpen of %d bytes", len(text))
		}
		if u != "file:///tmp/x.go" || lang != "go" || version != 7 {
			t.Errorf("got %s %s v%d", u, lang, version)
		}
		if string(got.Bytes()) != text || got.Len() != len(text) || got.Lines() != strings.Count(text, "\n") {
			t.Fatalf("text of %d bytes decoded to %d bytes (%d lines)", len(text), got.Len(), got.Lines())
		}
		for i, c := range got.chunks {
			if len(c.b) == 0 || len(c.b) > chunkMax {
				t.Fatalf("chunk %d holds %d bytes", i, len(c.b))
			}
		}
	}
	for _, raw := range []string{
		`{"textDocument":{"uri":"file:///x","languageId":"go","version":1}}`,
		`{"textDocument":{"uri":"file:///x","languageId":"go","version":1,"text":"a","extra":0}}`,
		`{"textDocument":{"uri":"file:///x","languageId":"go","version":1,"text":"\ud83d\ude0"}}`,
		`{"textDocument":{"uri":"file:///x","languageId":null,"version":1,"text":""}}`,
	} {
		if _, _, _, _, ok := fastDidOpen([]byte(raw)); ok {
			t.Errorf("fast decoder accepted %s", raw)
		}
	}
}

// TestTextFromJSONSurrogates cuts a run of escaped surrogate pairs at every
// alignment against the chunk size: no pair is split.
func TestTextFromJSONSurrogates(t *testing.T) {
	for pad := range 12 {
		text := strings.Repeat("a", chunkTarget-pad) + strings.Repeat("😀\"", 50)
		raw, _ := json.Marshal(text)
		// json.Marshal writes 😀 as UTF-8; spell it as escapes.
		esc := strings.ReplaceAll(string(raw[1:len(raw)-1]), "😀", `\ud83d\ude00`)
		got, ok := textFromJSON([]byte(esc))
		if !ok || string(got.Bytes()) != text {
			t.Fatalf("pad %d: ok=%v, got %q…", pad, ok, got.Bytes()[max(0, got.Len()-20):])
		}
	}
}
