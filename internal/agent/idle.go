package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// A model server can accept a request and then send nothing: a wedged
// local server, a proxy that keeps the connection open, a GPU that
// stopped. Neither SDK bounds that wait for a streamed answer, so the
// providers' HTTP clients do: every model request gets an idle limit that
// starts when the request is sent and restarts at each byte of the
// answer (status line and headers included). When it passes, the
// request is cancelled and the step fails with ErrStalled.
//
// It lives in the transport so that both SDKs, streaming or not, get the
// same limit with no SDK-specific code.

// stallError is the cause a stalled request is cancelled with.
type stallError struct {
	endpoint string
	limit    time.Duration
}

func (e *stallError) Error() string {
	return fmt.Sprintf("the model at %s sent nothing for %s", e.endpoint, seconds(e.limit))
}

// seconds renders d as "300 s" (or "1.5 s"), as the settings give it.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%g s", d.Seconds())
}

// modelCallKey holds, in a model call's context, the function that ends
// the whole call (every SDK attempt of it).
type modelCallKey struct{}

// watchCall returns a context for one model call. A stall in any of its
// requests cancels it with the *stallError as the cause. Cancelling the
// call's context, not only the attempt's, is what stops the SDKs from
// retrying: both retry a request that failed without a response, but
// never one whose caller's context is done. A retry would only repeat
// the wait (three times the limit with the default two retries) against
// a server that most likely stalls again. The caller must call stop.
// The call counts as silent (ModelWait) from now until stop.
func watchCall(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := modelWaitOf(ctx)
	w.begin()
	var once sync.Once
	stop := func(cause error) {
		once.Do(w.end)
		cancel(cause)
	}
	return context.WithValue(ctx, modelCallKey{}, cancel), stop
}

// stalled returns the *stallError that ended the call ctx watches, or
// nil.
func stalled(ctx context.Context) *stallError {
	var se *stallError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	return nil
}

// idleTransport cancels a request whose answer sends nothing for limit.
type idleTransport struct {
	base     http.RoundTripper
	endpoint string
	limit    time.Duration
}

// newModelHTTPClient returns the HTTP client of a provider for the model
// at endpoint.
func newModelHTTPClient(endpoint string, limit time.Duration) *http.Client {
	return &http.Client{Transport: &idleTransport{base: http.DefaultTransport, endpoint: endpoint, limit: limit}}
}

// RoundTrip implements http.RoundTripper.
func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	stall := &stallError{endpoint: t.endpoint, limit: t.limit}
	ctx, cancel := context.WithCancelCause(req.Context())
	endCall, _ := req.Context().Value(modelCallKey{}).(context.CancelCauseFunc)
	timer := time.AfterFunc(t.limit, func() {
		if endCall != nil {
			endCall(stall) // first: the SDK must see its caller's context done
		}
		cancel(stall)
	})
	res, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		if se := stalled(ctx); se != nil {
			err = se
		}
		cancel(nil)
		return nil, err
	}
	timer.Reset(t.limit) // the headers were bytes
	wait := modelWaitOf(req.Context())
	wait.heard()
	res.Body = &idleBody{rc: res.Body, timer: timer, limit: t.limit, ctx: ctx, cancel: cancel, wait: wait}
	return res, nil
}

// idleBody restarts its request's idle timer at every byte read.
type idleBody struct {
	rc     io.ReadCloser
	timer  *time.Timer
	limit  time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
	wait   *ModelWait // nil when no front end asked
	once   sync.Once
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.limit)
		b.wait.heard()
	}
	if err != nil && err != io.EOF {
		if se := stalled(b.ctx); se != nil {
			return n, se
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	err := b.rc.Close() // before the cancel, so a drained connection is reused
	b.once.Do(func() {
		b.timer.Stop()
		b.cancel(nil)
	})
	return err
}
