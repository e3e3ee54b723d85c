package acp

import (
	"context"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// Options configure the agent.
type Options struct {
	// Version is cb-ls's version, announced in initialize.
	Version string
	// Logger receives diagnostics (stderr: stdout is the protocol).
	Logger *slog.Logger
	// Run is how each session builds its run; the front end fills it.
	Run RunOptions
}

// Agent is one ACP connection's agent: the sessions a client created or
// loaded, and what the client said it can do.
type Agent struct {
	// conn is set once, before the wire lets the first message through
	// (start in Serve), so no handler can run before it; handlers reach it
	// through client(), which also waits for it.
	conn      *sdk.AgentSideConnection
	connReady chan struct{}
	opts      Options
	log       *slog.Logger

	mu          sync.Mutex
	initialized bool
	closed      bool // closeAll ran: no session may be added
	caps        sdk.ClientCapabilities
	prof        clientProfile // what initialize's clientInfo tells of the client
	sessions    map[string]*acpSession
}

// Serve runs the agent on one client connection (stdin and stdout of
// `cb-ls acp`) until the client goes away or ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a := &Agent{opts: opts, log: opts.Logger, sessions: map[string]*acpSession{}, connReady: make(chan struct{})}
	r, w, start := newWire(in, out, a.log)
	conn := sdk.NewAgentSideConnection(a, w, r)
	conn.SetLogger(a.log)
	a.conn = conn
	close(a.connReady)
	start()
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	return ctx.Err()
}

// client is the connection to the client, for requests and updates.
func (a *Agent) client() *sdk.AgentSideConnection {
	<-a.connReady
	return a.conn
}

// closeAll ends every session: its running turn and its MCP servers.
func (a *Agent) closeAll() {
	a.mu.Lock()
	a.closed = true
	ss := make([]*acpSession, 0, len(a.sessions))
	for _, s := range a.sessions {
		ss = append(ss, s)
	}
	a.sessions = map[string]*acpSession{}
	a.mu.Unlock()
	for _, s := range ss {
		s.close()
	}
}

var (
	_ sdk.Agent                  = (*Agent)(nil)
	_ sdk.AgentLoader            = (*Agent)(nil)
	_ sdk.ExtensionMethodHandler = (*Agent)(nil)
)

// Initialize implements sdk.Agent: cb-ls speaks v1, loads and lists
// stored sessions, takes text, resource links and embedded resources in
// prompts, and connects to the client's MCP servers over stdio and HTTP.
func (a *Agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	prof := profileOf(p.ClientInfo)
	a.mu.Lock()
	a.initialized, a.caps, a.prof = true, p.ClientCapabilities, prof
	a.caps.Fs = prof.fsCaps(p.ClientCapabilities.Fs)
	a.mu.Unlock()
	a.log.Info("acp: initialize", "client", prof.name, "protocol", p.ProtocolVersion,
		"readTextFile", p.ClientCapabilities.Fs.ReadTextFile, "writeTextFile", p.ClientCapabilities.Fs.WriteTextFile)
	if prof.diskBacked {
		a.log.Info("acp: this client answers fs/* from the disk and saves over open buffers; cb-ls reads the disk and writes atomically to it instead",
			"client", prof.name)
	}
	title := "cb-ls"
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "cb-ls", Title: &title, Version: a.opts.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  sdk.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:     sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{}},
		},
		// The key comes from the environment or the user's config, as for
		// every front end; a missing one is an auth_required error naming
		// where to put it, not a login flow.
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// profile is what cb-ls knows of the client (clients.go).
func (a *Agent) profile() clientProfile {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.prof
}

// clientCaps returns what the client said it can do, or an error before
// initialize.
func (a *Agent) clientCaps() (sdk.ClientCapabilities, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.initialized {
		return sdk.ClientCapabilities{}, sdk.NewInvalidRequest(map[string]string{"error": "initialize first"})
	}
	return a.caps, nil
}

// session returns the live session id, or an invalid-params error
// naming what to do.
func (a *Agent) session(id sdk.SessionId) (*acpSession, error) {
	if _, err := a.clientCaps(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	s := a.sessions[string(id)]
	a.mu.Unlock()
	if s == nil {
		return nil, sdk.NewInvalidParams(map[string]string{"error": "unknown session " + string(id) + ": create one with session/new or load it with session/load"})
	}
	return s, nil
}

// Authenticate implements sdk.Agent. No method is advertised: keys come
// from the environment or the user's config.
func (a *Agent) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]string{"error": "cb-ls has no authentication methods: " + keyHint})
}

// Cancel implements sdk.Agent. The SDK has already cancelled the
// session's running prompt (its context), which stops the model request
// and every command; the prompt then answers stopReason cancelled.
func (a *Agent) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	if s, err := a.session(p.SessionId); err == nil {
		s.cancelTurn()
	}
	return nil
}

// notSupported answers the methods cb-ls does not offer (and does not
// advertise).
func notSupported(method string) error { return sdk.NewMethodNotFound(method) }

// Logout implements sdk.Agent.
func (a *Agent) Logout(context.Context, sdk.LogoutRequest) (sdk.LogoutResponse, error) {
	return sdk.LogoutResponse{}, notSupported(sdk.AgentMethodLogout)
}

// CloseSession implements sdk.Agent.
func (a *Agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, notSupported(sdk.AgentMethodSessionClose)
}

// ResumeSession implements sdk.Agent.
func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, notSupported(sdk.AgentMethodSessionResume)
}

// SetSessionMode implements sdk.Agent.
func (a *Agent) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, notSupported(sdk.AgentMethodSessionSetMode)
}

// errorData wraps an error's text for a JSON-RPC error's data.
func errorData(err error) map[string]string { return map[string]string{"error": err.Error()} }
