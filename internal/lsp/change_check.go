package lsp

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The protocol package decodes a content change as a union and is lenient
// about it: when the "range" of a change does not decode (a negative line,
// a string, a float), it falls back to the other arm, a whole-document
// change, and the buffer would silently become the change's text; a null
// or incomplete range decodes as position 0:0. checkChanges holds the
// decoded changes against their wire form, so the overlay marks the buffer
// out of sync instead of guessing.

// wireRange is a range as it must appear on the wire: both positions,
// each with both fields, unsigned integers.
type wireRange struct {
	Start *wirePosition `json:"start"`
	End   *wirePosition `json:"end"`
}

type wirePosition struct {
	Line      *uint32 `json:"line"`
	Character *uint32 `json:"character"`
}

// checkChanges returns the index of the first change whose wire form does
// not match what the decoder made of it, and why; -1 when all match.
func checkChanges(raw []byte, changes []protocol.TextDocumentContentChangeEvent) (int, error) {
	partial := 0
	for _, ch := range changes {
		if _, ok := ch.(*protocol.TextDocumentContentChangePartial); ok {
			partial++
		}
	}
	if rangesWellFormed(raw, partial) {
		return -1, nil
	}
	var probe struct {
		// The text is scanned but not copied: only the range matters.
		ContentChanges []struct {
			Range json.RawMessage `json:"range"`
		} `json:"contentChanges"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return 0, fmt.Errorf("contentChanges: %w", err)
	}
	if len(probe.ContentChanges) != len(changes) {
		return 0, fmt.Errorf("contentChanges: %d on the wire, %d decoded", len(probe.ContentChanges), len(changes))
	}
	for i, ch := range changes {
		r := probe.ContentChanges[i].Range
		switch ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			if len(r) > 0 {
				return i, fmt.Errorf("change %d: range %s is not a valid range (lines and characters are unsigned integers)", i, clip(r))
			}
		case *protocol.TextDocumentContentChangePartial:
			var wr wireRange
			if err := json.Unmarshal(r, &wr); err != nil || wr.Start == nil || wr.End == nil ||
				wr.Start.Line == nil || wr.Start.Character == nil || wr.End.Line == nil || wr.End.Character == nil {
				return i, fmt.Errorf("change %d: range %s is not a valid range (start and end, each with line and character)", i, clip(r))
			}
		}
	}
	return -1, nil
}

// docURIOf returns the textDocument.uri of didChange params that did not
// decode as a whole, so the buffer they were meant for can be marked out of
// sync: dropping a change silently would leave it different from the
// editor's.
func docURIOf(raw []byte) (uri.URI, bool) {
	var probe struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(raw, &probe) != nil || probe.TextDocument.URI == "" {
		return "", false
	}
	return uri.URI(probe.TextDocument.URI), true
}
