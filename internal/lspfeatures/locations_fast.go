package lspfeatures

import (
	"bytes"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// fastLocations decodes the usual answer to definition, references and
// the like, an array of Location or LocationLink objects, without
// reflection: encoding/json spends about 4 µs on each of a thousand
// references. It reads exactly those objects' members, URIs without
// escapes or non-ASCII bytes, positions as unsigned 32-bit integers; for
// anything else ok is false and the caller decodes with encoding/json.
func fastLocations(raw []byte) (out []locationOrLink, ok bool) {
	s := scanner{b: raw}
	s.ws()
	if !s.byte('[') {
		return nil, false
	}
	s.ws()
	if s.byte(']') {
		return []locationOrLink{}, s.end()
	}
	for {
		var l locationOrLink
		if !s.location(&l) {
			return nil, false
		}
		out = append(out, l)
		s.ws()
		if s.byte(',') {
			s.ws()
			continue
		}
		return out, s.byte(']') && s.end()
	}
}

// scanner walks JSON bytes; every method reports whether what it read
// had the expected shape.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) end() bool { s.ws(); return s.i == len(s.b) }

// plainString reads a string of printable ASCII without escapes.
func (s *scanner) plainString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	k := bytes.IndexByte(s.b[start:], '"')
	if k < 0 {
		return nil, false
	}
	str := s.b[start : start+k]
	for _, c := range str {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return nil, false
		}
	}
	s.i = start + k + 1
	return str, true
}

// object reads {"key": value, …}, calling member after each key's colon.
func (s *scanner) object(member func(key string) bool) bool {
	if !s.byte('{') {
		return false
	}
	s.ws()
	if s.byte('}') {
		return true
	}
	for {
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.ws()
		if !s.byte(':') {
			return false
		}
		s.ws()
		if !member(string(key)) {
			return false
		}
		s.ws()
		if s.byte(',') {
			s.ws()
			continue
		}
		return s.byte('}')
	}
}

func (s *scanner) uri(u *uri.URI) bool {
	str, ok := s.plainString()
	if !ok {
		return false
	}
	v, err := uri.Parse(string(str))
	*u = v
	return err == nil
}

func (s *scanner) location(l *locationOrLink) bool {
	var sel protocol.Range
	return s.object(func(key string) bool {
		switch key {
		case "uri":
			return s.uri(&l.URI)
		case "range":
			return s.rangeValue(&l.Range)
		case "targetUri":
			return s.uri(&l.TargetURI)
		case "targetRange":
			return s.rangeValue(&l.TargetRange)
		case "targetSelectionRange":
			l.TargetSelectionRange = &sel
			return s.rangeValue(&sel)
		case "originSelectionRange":
			var r protocol.Range
			return s.rangeValue(&r)
		}
		return false
	})
}

func (s *scanner) rangeValue(r *protocol.Range) bool {
	return s.object(func(key string) bool {
		switch key {
		case "start":
			return s.position(&r.Start)
		case "end":
			return s.position(&r.End)
		}
		return false
	})
}

func (s *scanner) position(p *protocol.Position) bool {
	return s.object(func(key string) bool {
		switch key {
		case "line":
			return s.uint32(&p.Line)
		case "character":
			return s.uint32(&p.Character)
		}
		return false
	})
}

// uint32 reads a JSON number that is an unsigned 32-bit integer.
func (s *scanner) uint32(v *uint32) bool {
	start, n := s.i, uint64(0)
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' && s.i-start < 11 {
		n = n*10 + uint64(s.b[s.i]-'0')
		s.i++
	}
	if s.i == start || n > 1<<32-1 || (s.b[start] == '0' && s.i-start > 1) {
		return false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E' || (s.b[s.i] >= '0' && s.b[s.i] <= '9')) {
		return false
	}
	*v = uint32(n)
	return true
}
