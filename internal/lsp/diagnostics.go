package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// MethodDiagnostics is the server→client request for a document's
// diagnostics from every source, once they have settled after the last
// change (docs/PROTOCOL.md).
const MethodDiagnostics = "catbuddy/diagnostics"

// DiagnosticsParams is the payload of catbuddy/diagnostics.
type DiagnosticsParams struct {
	URI uri.URI `json:"uri"`
	// Settle is how the client waits for the diagnostics to settle
	// before it answers; every request carries it.
	Settle *SettleParams `json:"settle,omitempty"`
}

// SettleParams are the settle rule's two durations, in milliseconds
// (docs/PROTOCOL.md): the diagnostics of a document count as settled
// when they changed after its last change, or when that change is
// QuietMs old; a client never waits more than CapMs.
type SettleParams struct {
	QuietMs int `json:"quietMs"`
	CapMs   int `json:"capMs"`
}

// The settle rule's durations (tools.SettleQuiet, tools.SettleCap), sent
// with every request so that they live in the server, not in each
// client; the language servers cb-ls starts itself are waited for by the
// same rule (lspclient).
const (
	settleQuiet = tools.SettleQuiet
	settleCap   = tools.SettleCap
)

// SettleRule returns the rule the server sends.
func SettleRule() SettleParams {
	return SettleParams{QuietMs: int(settleQuiet.Milliseconds()), CapMs: int(settleCap.Milliseconds())}
}

// diagnosticsTimeout bounds one catbuddy/diagnostics request: clients
// answer within the cap; a client that hangs must not hold the run.
const diagnosticsTimeout = settleCap + 3*time.Second

// editorDiagnostics is the tools.DiagnosticsSource of a connection: it
// asks the client. A client that answers MethodNotFound, or null (as
// clients do for a request they do not know, having declared nothing),
// is not asked again on this connection.
type editorDiagnostics struct {
	s           *Server
	unsupported atomic.Bool
}

var _ tools.DiagnosticsSource = (*editorDiagnostics)(nil)

// Diagnostics implements tools.DiagnosticsSource.
func (d *editorDiagnostics) Diagnostics(ctx context.Context, path string) ([]tools.Diagnostic, error) {
	if d.unsupported.Load() {
		return nil, tools.ErrNoDiagnostics
	}
	u := fileuri.FromPath(path)
	if b, ok := d.s.overlay.ByPath(path); ok {
		u = b.URI
	}
	ctx, cancel := context.WithTimeout(ctx, diagnosticsTimeout)
	defer cancel()
	settle := SettleRule()
	var raw json.RawMessage
	_, err := d.s.conn.Call(ctx, MethodDiagnostics, &DiagnosticsParams{URI: u, Settle: &settle}, &raw)
	var rpcErr *jsonrpc2.Error
	switch {
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.MethodNotFound, err == nil && isNull(raw):
		// null is what a client answers for a request it does not know
		// (eglot's default handler): it cannot tell, which is not "no
		// diagnostics". Either way it is not asked again.
		d.unsupported.Store(true)
		d.s.log.Info("the client does not implement "+MethodDiagnostics+"; edits are reported without diagnostics", "error", err)
		return nil, tools.ErrNoDiagnostics
	case errors.As(err, &rpcErr):
		// The client answered, with an error: it could not tell this time.
		d.s.log.Warn("the client answered "+MethodDiagnostics+" with an error", "uri", u, "error", err)
		return nil, fmt.Errorf("%w (%s answered: %s)", tools.ErrNoDiagnostics, MethodDiagnostics, rpcErr.Message)
	case err != nil:
		d.s.log.Warn("diagnostics not received", "uri", u, "error", err)
		return nil, fmt.Errorf("%s %s: %w", MethodDiagnostics, path, err)
	}
	var res []protocol.Diagnostic
	if err := protocol.Unmarshal(raw, &res); err != nil {
		d.s.log.Warn("malformed "+MethodDiagnostics+" answer", "uri", u, "error", err)
		return nil, fmt.Errorf("%w (its answer to %s is not a list of diagnostics: %v)", tools.ErrNoDiagnostics, MethodDiagnostics, err)
	}
	out := make([]tools.Diagnostic, 0, len(res))
	for _, pd := range res {
		out = append(out, convertDiagnostic(pd))
	}
	return out, nil
}

// OpenFiles implements tools.DiagnosticsSource.
func (d *editorDiagnostics) OpenFiles(context.Context) []string { return d.s.overlay.Paths() }

// isNull reports whether a bridge request's result is JSON null (or
// absent). A client that did not declare the capability behind a
// request and answers it null does not implement it: the answer must not
// be read as an empty result.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}
