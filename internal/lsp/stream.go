package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// maxBadFrames bounds consecutive unreadable frames before the stream
// gives up: a peer that sends nothing but garbage is not an editor. The
// process then exits non-zero and the editor starts a fresh server.
const maxBadFrames = 100

// errGaveUp ends the connection after maxBadFrames unreadable frames.
var errGaveUp = errors.New("the input stream is not LSP")

// wireStream reads frames with frameReader (limits, resync) and writes
// them itself (jsonrpc2's header stream keeps its largest write buffer
// for the session and writes bytes that are not UTF-8 as they are). A
// frame whose body is not JSON-RPC is skipped instead of ending the
// connection as jsonrpc2 would; the first of a run of them is answered
// with a ParseError (id null).
type wireStream struct {
	frames *frameReader
	w      io.WriteCloser
	log    *slog.Logger

	wmu         sync.Mutex // one frame at a time
	body, frame []byte     // reused write buffers, guarded by wmu
}

func newWireStream(rwc io.ReadWriteCloser, log *slog.Logger) *wireStream {
	return &wireStream{frames: newFrameReader(rwc), w: rwc, log: log}
}

// Read implements jsonrpc2.Stream.
func (s *wireStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	bad := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.frames.Next()
		for _, e := range s.frames.Recovered() {
			bad++
			s.log.Warn("skipped input that is not an LSP frame", "error", e)
		}
		if err != nil {
			if errors.Is(err, errFraming) {
				s.log.Error("exiting: cannot find the next LSP frame; the editor should restart the server", "error", err)
			}
			return nil, 0, err
		}
		if bad > maxBadFrames {
			return nil, 0, s.giveUp(bad)
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		if bad++; bad > maxBadFrames {
			return nil, 0, s.giveUp(bad)
		}
		s.frames.Resync(body)
		if bad > 1 {
			// One ParseError per run of bad frames: clients report each
			// one loudly (Neovim as an error message), and a burst of
			// garbage would bury the editor in them.
			s.log.Warn("skipping an unparsable frame", "error", err, "size", len(body))
			continue
		}
		s.log.Warn("answering an unparsable frame with ParseError", "error", err, "size", len(body))
		resp := jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(jsonrpc2.ParseError, "parse error: "+err.Error()))
		if _, werr := s.Write(ctx, resp); werr != nil {
			return nil, 0, werr
		}
	}
}

func (s *wireStream) giveUp(bad int) error {
	err := fmt.Errorf("%w: %d consecutive frames could not be read", errGaveUp, bad)
	s.log.Error("exiting: the editor should restart the server", "error", err)
	return err
}

// Write implements jsonrpc2.Stream: one frame, one write. A frame that is
// not valid UTF-8 (an error message or a string id echoing the client's
// bytes, a file's bytes) has each invalid sequence replaced by U+FFFD:
// some clients drop such a frame, and Node's decode does this anyway.
func (s *wireStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	body := jsonrpc2.AppendMessage(s.body[:0], msg)
	if !utf8.Valid(body) {
		s.log.Debug("replacing invalid UTF-8 in an outgoing frame", "size", len(body))
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	out := append(s.frame[:0], "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n\r\n"...)
	out = append(out, body...)
	n, err := s.w.Write(out)
	// Like the read side, keep no large buffer after a large frame.
	s.body, s.frame = keepSmall(body), keepSmall(out)
	return int64(n), err
}

func keepSmall(b []byte) []byte {
	if cap(b) > keepBody {
		return nil
	}
	return b[:0]
}

// Close implements jsonrpc2.Stream.
func (s *wireStream) Close() error { return s.w.Close() }
