package fake

import (
	"context"
	"slices"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// silentState holds the requests the editor leaves unanswered.
type silentState struct {
	mu        sync.Mutex
	methods   []string
	pending   map[jsonrpc2.ID]context.CancelFunc
	withdrawn []string // methods of the requests the server withdrew
	// early holds ids the server cancelled before their request's
	// handler began to hold them: requests are handled concurrently, so
	// a $/cancelRequest may be read first.
	early   map[jsonrpc2.ID]bool
	answers map[string]func() (any, error)
}

// SetAnswer makes the editor answer every following request of method
// with what f returns (a nil result is sent as null), as a client that
// does not know the method does: eglot answers such a request null.
func (e *Editor) SetAnswer(method string, f func() (any, error)) {
	s := &e.silent
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answers == nil {
		s.answers = map[string]func() (any, error){}
	}
	s.answers[method] = f
}

// setAnswer returns the answer SetAnswer installed for method, if any.
func (e *Editor) setAnswer(method string) func() (any, error) {
	s := &e.silent
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answers[method]
}

// Ignore makes the editor leave every following request of method
// unanswered, as a client does when the user dismisses a question and it
// reports nothing (eglot on C-g). Such a request is answered only once
// the server withdraws it with $/cancelRequest, with RequestCancelled,
// as LSP asks of a client; Withdrawn lists those.
func (e *Editor) Ignore(method string) {
	s := &e.silent
	s.mu.Lock()
	s.methods = append(s.methods, method)
	s.mu.Unlock()
}

// Withdrawn returns the methods of the ignored requests the server
// cancelled, in order.
func (e *Editor) Withdrawn() []string {
	s := &e.silent
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.withdrawn)
}

// ignoring reports whether requests of method go unanswered.
func (e *Editor) ignoring(method string) bool {
	s := &e.silent
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.methods, method)
}

// holdUnanswered blocks until the server cancels request id (or the
// connection ends) and answers RequestCancelled.
func (e *Editor) holdUnanswered(ctx context.Context, id jsonrpc2.ID, method string) (any, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &e.silent
	s.mu.Lock()
	if s.early[id] {
		delete(s.early, id)
		s.withdrawn = append(s.withdrawn, method)
		s.mu.Unlock()
		e.mu.Lock()
		e.wake()
		e.mu.Unlock()
		return nil, protocol.ErrRequestCancelled
	}
	if s.pending == nil {
		s.pending = map[jsonrpc2.ID]context.CancelFunc{}
	}
	s.pending[id] = func() {
		s.withdrawn = append(s.withdrawn, method)
		cancel()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	<-ctx.Done()
	return nil, protocol.ErrRequestCancelled
}

// withdraw ends an unanswered request the server cancelled; it reports
// whether id was one.
func (e *Editor) withdraw(id jsonrpc2.ID) bool {
	s := &e.silent
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.pending[id]
	if f != nil {
		f() // under s.mu: it appends to withdrawn
		delete(s.pending, id)
		return true
	}
	if s.early == nil {
		s.early = map[jsonrpc2.ID]bool{}
	}
	s.early[id] = true
	return false
}
