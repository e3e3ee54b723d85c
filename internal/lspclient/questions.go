package lspclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/lspfeatures"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// This file asks one server one question: after its project loaded,
// bounded in time, with a broken server told apart from a question it
// cannot answer.

// ask sends one question to s once it has loaded its project (or the
// wait ran out: then the answer is marked). A server whose very first
// answer is an error, and which fails a question any healthy server
// answers as well, is broken (a missing installation) and withdrawn.
func (c *Client) ask(ctx context.Context, s *server, path, method string, params any) (json.RawMessage, error) {
	loading := !c.awaitReady(ctx, s)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw, err := c.callOne(ctx, s, method, params)
	var re *lspfeatures.RequestError
	switch {
	case err == nil:
		s.answered.Store(true)
		if busy, _ := s.ready.indexing(); loading || busy {
			tools.NoteLanguageAnswer(ctx, fmt.Sprintf(IndexingNote, s.name))
		}
	case errors.As(err, &re) && !s.answered.Load() && c.broken(ctx, s, path, method, params):
		go s.stop(context.WithoutCancel(ctx))
		return nil, c.withdrawRunning(s, fmt.Errorf("it fails every request: %s", re.Message))
	case errors.Is(err, errExited):
		c.mu.Lock()
		again := c.restarts[s.name] == 0
		c.mu.Unlock()
		if again {
			return nil, fmt.Errorf("%w; it will be restarted for the next question", err)
		}
		return nil, c.withdrawRunning(s, fmt.Errorf("it crashed again after a restart: %w", err))
	}
	return raw, err
}

// broken asks s a question every healthy server answers for an open
// document (its outline), or the failed question again where it has no
// outline: a second error means the server, not the question, is at
// fault.
func (c *Client) broken(ctx context.Context, s *server, path, method string, params any) bool {
	probe, probeParams := method, params
	if path != "" && method != protocol.MethodTextDocumentDocumentSymbol && s.supports(protocol.MethodTextDocumentDocumentSymbol) {
		s.mu.Lock()
		d := s.docs[path]
		s.mu.Unlock()
		if d != nil {
			probe = protocol.MethodTextDocumentDocumentSymbol
			probeParams = map[string]any{"textDocument": map[string]any{"uri": d.uri}}
		}
	}
	_, err := c.callOne(ctx, s, probe, probeParams)
	var re *lspfeatures.RequestError
	if err == nil {
		s.answered.Store(true)
		return false
	}
	return errors.As(err, &re)
}

// awaitReady waits for s to load its project, up to the server's bound,
// telling the front end how long it has been; it reports whether s is
// ready.
func (c *Client) awaitReady(ctx context.Context, s *server) bool {
	if busy, _ := s.ready.indexing(); !busy {
		return true
	}
	bound := s.cfg.IndexingWait
	if bound <= 0 {
		bound = c.opts.IndexingWait
	}
	told := false
	ok := s.ready.wait(ctx, bound, func(elapsed time.Duration, doing string) {
		told = true
		c.status(Status{Server: s.name, State: StateIndexing, Text: indexingStatus(s.name, elapsed, doing)})
	})
	if ok && told {
		c.status(Status{Server: s.name, State: StateReady, Text: s.name + ": ready"})
	}
	return ok
}

func (c *Client) callOne(ctx context.Context, s *server, method string, params any) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var res jsonrpc2.RawMessage
	err := s.call(cctx, method, params, &res)
	var rpcErr *jsonrpc2.Error
	switch {
	case err == nil:
		return json.RawMessage(res), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case cctx.Err() != nil:
		return nil, fmt.Errorf("language server %s did not answer %s within %v (it may be loading the project or hung); the request was cancelled", s.name, method, c.opts.Timeout)
	case errors.As(err, &rpcErr):
		return nil, &lspfeatures.RequestError{Method: method, Code: int64(rpcErr.Code), Message: rpcErr.Message}
	}
	return nil, err
}
