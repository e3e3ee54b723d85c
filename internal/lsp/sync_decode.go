package lsp

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The text synchronisation notifications are the hot path: one didChange
// per keystroke, and a didOpen that carries a whole document. These
// decoders read the params in place, strictly: exactly the members LSP
// defines, each of its JSON type, strings valid UTF-8. They decode no
// reflection-driven union (the protocol package's is several times
// slower) and a didOpen's text is unescaped straight into the Text's
// chunks, without a document-sized string in between. Anything else
// (an unknown member, a null, a malformed range) returns ok=false and
// takes the general decoder with its exact errors and desync handling.

// fastDidChange decodes didChange params of the usual shape.
func fastDidChange(raw []byte) (u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent, ok bool) {
	var haveDoc, haveChanges bool
	end, ok := scanObject(raw, skipWS(raw, 0), func(key []byte, j int) (int, bool) {
		switch string(key) {
		case "textDocument":
			if haveDoc {
				return 0, false
			}
			haveDoc = true
			var haveURI, haveVersion bool
			return scanObject(raw, j, func(key []byte, j int) (int, bool) {
				switch string(key) {
				case "uri":
					s, end, ok := scanString(raw, j)
					if !ok || haveURI {
						return 0, false
					}
					u, haveURI = uri.URI(s), true
					return end, true
				case "version":
					v, end, ok := scanInt32(raw, j)
					if !ok || haveVersion {
						return 0, false
					}
					version, haveVersion = v, true
					return end, true
				}
				return 0, false
			}, func() bool { return haveURI && haveVersion })
		case "contentChanges":
			if haveChanges {
				return 0, false
			}
			haveChanges = true
			return scanArray(raw, j, func(j int) (int, bool) {
				ch, end, ok := scanChange(raw, j)
				if ok {
					changes = append(changes, ch)
				}
				return end, ok
			})
		}
		return 0, false
	}, func() bool { return haveDoc && haveChanges })
	if !ok || skipWS(raw, end) != len(raw) {
		return "", 0, nil, false
	}
	return u, version, changes, true
}

// scanChange reads one content change: {"range", "rangeLength"?, "text"}
// or {"text"}.
func scanChange(b []byte, i int) (protocol.TextDocumentContentChangeEvent, int, bool) {
	var (
		r                  protocol.Range
		text               string
		haveRange, haveLen bool
		haveText           bool
	)
	end, ok := scanObject(b, i, func(key []byte, j int) (int, bool) {
		switch string(key) {
		case "range":
			if haveRange {
				return 0, false
			}
			haveRange = true
			return scanRangeValue(b, j, &r)
		case "rangeLength":
			if haveLen {
				return 0, false
			}
			haveLen = true
			return scanUint32(b, j)
		case "text":
			s, end, ok := scanString(b, j)
			if !ok || haveText {
				return 0, false
			}
			text, haveText = s, true
			return end, true
		}
		return 0, false
	}, func() bool { return haveText })
	if !ok {
		return nil, 0, false
	}
	if haveRange {
		return &protocol.TextDocumentContentChangePartial{Range: r, Text: text}, end, true
	}
	if haveLen {
		return nil, 0, false // a length without a range is not a change LSP defines
	}
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}, end, true
}

// scanRangeValue reads {"start": position, "end": position}.
func scanRangeValue(b []byte, i int, r *protocol.Range) (int, bool) {
	seen := 0
	return scanObject(b, i, func(key []byte, j int) (int, bool) {
		var p *protocol.Position
		bit := 0
		switch string(key) {
		case "start":
			p, bit = &r.Start, 1
		case "end":
			p, bit = &r.End, 2
		default:
			return 0, false
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		return scanPositionValue(b, j, p)
	}, func() bool { return seen == 3 })
}

// scanPositionValue reads {"line": uint32, "character": uint32}.
func scanPositionValue(b []byte, i int, p *protocol.Position) (int, bool) {
	seen := 0
	return scanObject(b, i, func(key []byte, j int) (int, bool) {
		var v *uint32
		bit := 0
		switch string(key) {
		case "line":
			v, bit = &p.Line, 1
		case "character":
			v, bit = &p.Character, 2
		default:
			return 0, false
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		end, ok := scanUint32(b, j)
		if ok {
			*v = parseDigits(b[j:end])
		}
		return end, ok
	}, func() bool { return seen == 3 })
}

// parseDigits converts digits that scanUint32 accepted.
func parseDigits(d []byte) uint32 {
	v := uint32(0)
	for _, c := range d {
		v = v*10 + uint32(c-'0')
	}
	return v
}

// scanInt32 reads a JSON integer in int32's range.
func scanInt32(b []byte, i int) (int32, int, bool) {
	neg := i < len(b) && b[i] == '-'
	j := i
	if neg {
		j++
	}
	end, ok := scanUint32(b, j)
	if !ok {
		return 0, 0, false
	}
	v := int64(parseDigits(b[j:end]))
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -(1<<31) {
		return 0, 0, false
	}
	return int32(v), end, true
}

// scanArray walks [value, …] at i, calling elem with the index of each
// value; elem returns the index after it. An empty array is accepted.
func scanArray(b []byte, i int, elem func(j int) (int, bool)) (int, bool) {
	if i >= len(b) || b[i] != '[' {
		return 0, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		j, ok := elem(i)
		if !ok {
			return 0, false
		}
		i = skipWS(b, j)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		return 0, false
	}
}

// stringToken finds the JSON string starting at i: its contents between
// the quotes, whether they hold escapes, and the index after it. It
// refuses control characters and invalid UTF-8, which the general
// decoder handles (replacing what is invalid).
func stringToken(b []byte, i int) (body []byte, escaped bool, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, false, 0, false
	}
	ascii := true
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			body = b[i+1 : j]
			if !ascii && !utf8.Valid(body) {
				return nil, false, 0, false
			}
			return body, escaped, j + 1, true
		case c == '\\':
			escaped = true
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			return nil, false, 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, 0, false
}

// scanString reads a JSON string value.
func scanString(b []byte, i int) (string, int, bool) {
	body, escaped, end, ok := stringToken(b, i)
	if !ok {
		return "", 0, false
	}
	if !escaped {
		return string(body), end, true
	}
	out, ok := appendUnescaped(make([]byte, 0, len(body)), body)
	return string(out), end, ok
}

// appendUnescaped appends the JSON string contents src, unescaped, to dst.
// A lone surrogate becomes U+FFFD, as encoding/json makes it.
func appendUnescaped(dst, src []byte) ([]byte, bool) {
	for len(src) > 0 {
		k := bytes.IndexByte(src, '\\')
		if k < 0 {
			return append(dst, src...), true
		}
		dst = append(dst, src[:k]...)
		src = src[k:]
		if len(src) < 2 {
			return nil, false
		}
		var c byte
		switch src[1] {
		case '"', '\\', '/':
			c = src[1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			r, n, ok := unicodeEscape(src)
			if !ok {
				return nil, false
			}
			dst = utf8.AppendRune(dst, r)
			src = src[n:]
			continue
		default:
			return nil, false
		}
		dst = append(dst, c)
		src = src[2:]
	}
	return dst, true
}

// unicodeEscape decodes \uXXXX at the start of src, with the low half of
// a surrogate pair when one follows, and returns how many bytes it took.
func unicodeEscape(src []byte) (rune, int, bool) {
	r, ok := hex4(src)
	if !ok {
		return 0, 0, false
	}
	if !utf16.IsSurrogate(r) {
		return r, 6, true
	}
	if len(src) >= 12 && src[6] == '\\' && src[7] == 'u' {
		if lo, ok := hex4(src[6:]); ok {
			if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
				return dec, 12, true
			}
		}
	}
	return utf8.RuneError, 6, true
}

// hex4 reads the four hex digits of \uXXXX at the start of src.
func hex4(src []byte) (rune, bool) {
	if len(src) < 6 {
		return 0, false
	}
	var r rune
	for _, c := range src[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// fastDidOpen decodes didOpen params of the usual shape; the text goes
// straight into a Text.
func fastDidOpen(raw []byte) (u uri.URI, languageID string, version int32, text *Text, ok bool) {
	var have int // bits: uri, languageId, version, text
	var body []byte
	var escaped bool
	member := func(bit int, end int, ok bool) (int, bool) {
		if !ok || have&bit != 0 {
			return 0, false
		}
		have |= bit
		return end, true
	}
	var haveDoc bool
	end, ok := scanObject(raw, skipWS(raw, 0), func(key []byte, j int) (int, bool) {
		if string(key) != "textDocument" || haveDoc {
			return 0, false
		}
		haveDoc = true
		return scanObject(raw, j, func(key []byte, j int) (int, bool) {
			switch string(key) {
			case "uri":
				s, end, ok := scanString(raw, j)
				u = uri.URI(s)
				return member(1, end, ok)
			case "languageId":
				s, end, ok := scanString(raw, j)
				languageID = s
				return member(2, end, ok)
			case "version":
				v, end, ok := scanInt32(raw, j)
				version = v
				return member(4, end, ok)
			case "text":
				b, esc, end, ok := stringToken(raw, j)
				body, escaped = b, esc
				return member(8, end, ok)
			}
			return 0, false
		}, func() bool { return have == 15 })
	}, func() bool { return haveDoc })
	if !ok || skipWS(raw, end) != len(raw) {
		return "", "", 0, nil, false
	}
	if !escaped {
		return u, languageID, version, NewText(body), true
	}
	t, ok := textFromJSON(body)
	return u, languageID, version, t, ok
}

// textFromJSON builds a Text from the contents of a JSON string with
// escapes, unescaping about a chunk at a time into the chunks themselves.
func textFromJSON(src []byte) (*Text, bool) {
	t := &Text{}
	for len(src) > 0 {
		n := len(src)
		if n > chunkTarget {
			n = runeCut(src, escapeCut(src, chunkTarget))
		}
		piece, ok := appendUnescaped(make([]byte, 0, n), src[:n])
		if !ok {
			return nil, false
		}
		if len(piece) > 0 {
			c := chunk{b: piece, nl: bytes.Count(piece, nl)}
			t.chunks = append(t.chunks, c)
			t.size += len(piece)
			t.lines += c.nl
		}
		src = src[n:]
	}
	return t, true
}

// escapeCut returns where to cut src at or before n so that no escape
// sequence (\X, \uXXXX, or a \uXXXX\uXXXX surrogate pair) is split.
func escapeCut(src []byte, n int) int {
	for p := 0; ; {
		k := bytes.IndexByte(src[p:n], '\\')
		if k < 0 {
			return n
		}
		e := p + k
		l := 2
		if e+1 < len(src) && src[e+1] == 'u' {
			l = 6
			if r, ok := hex4(src[e:]); ok && utf16.IsSurrogate(r) && e+7 < len(src) && src[e+6] == '\\' && src[e+7] == 'u' {
				l = 12
			}
		}
		if e+l > n {
			if e == 0 {
				return min(l, len(src)) // an escape longer than n: keep it whole
			}
			return e
		}
		p = e + l
	}
}
