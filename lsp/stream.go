package lsp

import (
	"context"
	"errors"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
)

// maxBadFrames bounds consecutive unreadable frames before the stream
// gives up: a peer that sends nothing but garbage is not an editor.
const maxBadFrames = 100

// tolerantStream wraps the header stream so that a frame whose body is not
// JSON-RPC is answered with a ParseError (id null) and skipped, instead of
// ending the connection as jsonrpc2 would. A frame with a malformed header
// is skipped too: the header reader has consumed it up to the blank line.
type tolerantStream struct {
	inner  jsonrpc2.Stream
	frames interface {
		ReadFrame(ctx context.Context) ([]byte, int64, error)
	}
	log *slog.Logger
}

func newTolerantStream(inner jsonrpc2.Stream, log *slog.Logger) jsonrpc2.Stream {
	fr, ok := inner.(interface {
		ReadFrame(ctx context.Context) ([]byte, int64, error)
	})
	if !ok {
		return inner
	}
	return &tolerantStream{inner: inner, frames: fr, log: log}
}

// Read implements jsonrpc2.Stream.
func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for bad := 0; ; bad++ {
		body, n, err := s.frames.ReadFrame(ctx)
		if errors.Is(err, jsonrpc2.ErrInvalidHeader) && bad < maxBadFrames {
			s.log.Warn("skipping frame with a malformed header", "error", err)
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		if bad >= maxBadFrames {
			return nil, 0, err
		}
		s.log.Warn("answering an unparsable frame with ParseError", "error", err, "size", len(body))
		resp := jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(jsonrpc2.ParseError, "parse error: "+err.Error()))
		if _, werr := s.inner.Write(ctx, resp); werr != nil {
			return nil, 0, werr
		}
	}
}

// Write implements jsonrpc2.Stream.
func (s *tolerantStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.inner.Write(ctx, msg)
}

// Close implements jsonrpc2.Stream.
func (s *tolerantStream) Close() error { return s.inner.Close() }
