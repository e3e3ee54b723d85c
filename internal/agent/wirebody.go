package agent

import (
	"bytes"
	"io"
	"net/http"
)

// The SDKs encode requests with encoding/json, which writes <, > and &
// as \u003c, \u003e and \u0026: six bytes for one, in code that is
// full of them (&&, <-, ->, generics), in every result that every
// later request of the run resends. unescapeHTML gives the request its
// plain characters back; the JSON means the same.

// unescapeHTML rewrites \u003c, \u003e and \u0026 in a JSON text as the
// characters. An escape is always a backslash and one character (or u
// and four hex digits), so reading the text by escapes never takes an
// escaped backslash for the start of one.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) && b[i+2] == '0' && b[i+3] == '0' {
			switch string(b[i+4 : i+6]) {
			case "3c":
				out, i = append(out, '<'), i+5
				continue
			case "3e":
				out, i = append(out, '>'), i+5
				continue
			case "26":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out = append(out, c, b[i+1])
		i++
	}
	return out
}

// compactRequestBody applies unescapeHTML to a JSON request's body.
func compactRequestBody(req *http.Request) error {
	if req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return err
	}
	req.Body.Close()
	body = unescapeHTML(body)
	req.ContentLength = int64(len(body))
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}
