package lsp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Progress is one $/progress work-done token: begin, any number of
// reports, end. A Progress whose client does not support work-done
// progress is inert: every method is a no-op, so callers never check.
type Progress struct {
	s        *Server
	token    string
	active   bool
	onCancel func()
	once     sync.Once
	ended    atomic.Bool
}

var progressSeq atomic.Int64

// startProgress creates a token (window/workDoneProgress/create) when the
// client supports it and sends begin. With cancellable, the editor shows
// a Cancel button; pressing it calls onCancel (once). It waits for the
// client's answer to create, so never call it on the read loop.
func (s *Server) startProgress(ctx context.Context, title, message string, cancellable bool, onCancel func()) *Progress {
	p := &Progress{s: s, token: fmt.Sprintf("cb-ls/%d", progressSeq.Add(1)), onCancel: onCancel}
	if !s.supportsWorkDoneProgress() {
		return p
	}
	if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: protocol.String(p.token)}); err != nil {
		s.log.Debug("workDoneProgress/create failed", "error", err)
		return p
	}
	p.active = true
	s.mu.Lock()
	s.progress[p.token] = p
	s.mu.Unlock()
	begin := protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &cancellable}
	if message != "" {
		begin.Message = &message
	}
	p.send(ctx, &begin)
	return p
}

// Token returns the progress token ("" when inert).
func (p *Progress) Token() string {
	if !p.active {
		return ""
	}
	return p.token
}

// Report sends a report with message (and a percentage when pct >= 0).
func (p *Progress) Report(ctx context.Context, message string, pct int) {
	if !p.active || p.ended.Load() {
		return
	}
	r := protocol.WorkDoneProgressReport{Kind: "report", Message: &message}
	if pct >= 0 {
		u := uint32(min(pct, 100))
		r.Percentage = &u
	}
	p.send(ctx, &r)
}

// End sends end with message; later calls do nothing.
func (p *Progress) End(ctx context.Context, message string) {
	if !p.active || p.ended.Swap(true) {
		return
	}
	p.s.mu.Lock()
	delete(p.s.progress, p.token)
	p.s.mu.Unlock()
	e := protocol.WorkDoneProgressEnd{Kind: "end"}
	if message != "" {
		e.Message = &message
	}
	p.send(ctx, &e)
}

func (p *Progress) send(ctx context.Context, v any) {
	raw, err := protocol.Marshal(v)
	if err != nil {
		p.s.log.Error("marshal progress", "error", err)
		return
	}
	p.s.notify(ctx, protocol.MethodProgress, &protocol.ProgressParams{Token: protocol.String(p.token), Value: raw})
}

// workDoneProgressCancel runs the cancel callback of the named token.
func (s *Server) workDoneProgressCancel(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.WorkDoneProgressCancelParams
	if err := decodeParams(raw, &params); err != nil {
		return nil, err
	}
	var token string
	switch t := params.Token.(type) {
	case protocol.String:
		token = string(t)
	case protocol.Integer:
		token = fmt.Sprint(int32(t))
	}
	s.mu.Lock()
	p := s.progress[token]
	s.mu.Unlock()
	if p != nil && p.onCancel != nil {
		p.once.Do(p.onCancel)
	}
	return nil, nil
}
