package acp_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/acp"
	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// testClient is an ACP client, as an editor is one: it holds buffers
// (unsaved text the disk does not have), answers fs/* from them, and
// answers each permission question with answer.
type testClient struct {
	t *testing.T

	mu      sync.Mutex
	buffers map[string]string // path → unsaved text
	writes  map[string]string // fs/write_text_file calls, last per path
	nReads  int
	reads   []string // fs/read_text_file paths, in order
	// refuseReads answers every fs/read_text_file as acpx --deny-all does.
	refuseReads bool
	nWrites     int
	// failWrites are paths whose fs/write_text_file fails, as a write the
	// user refused in acpx.
	failWrites map[string]bool
	updates    []sdk.SessionNotification
	perms      []sdk.RequestPermissionRequest
	changed    chan struct{} // closed and replaced on every update or question
	// answer picks the option id for a question; "" cancels it.
	answer func(sdk.RequestPermissionRequest) string
	// review is the agent's review setting (connect): "before" for the
	// tests of the question per change, "" (pending) for pending_test.go.
	review string
}

func newTestClient(t *testing.T) *testClient {
	return &testClient{t: t, buffers: map[string]string{}, writes: map[string]string{}, changed: make(chan struct{}), review: config.ReviewBefore}
}

func (c *testClient) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *testClient) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.nReads++
	c.reads = append(c.reads, p.Path)
	text, open := c.buffers[p.Path]
	refuse := c.refuseReads
	c.mu.Unlock()
	if refuse {
		return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]string{"details": "Permission denied for fs/read_text_file (--deny-all)"})
	}
	if open {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]string{"error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}

// WriteTextFile writes the buffer, as an editor does: the disk is not
// touched.
func (c *testClient) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failWrites[p.Path] {
		return sdk.WriteTextFileResponse{}, sdk.NewInternalError(map[string]string{"details": "Permission denied for fs/write_text_file"})
	}
	c.nWrites++
	c.writes[p.Path] = p.Content
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *testClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	answer := c.answer
	c.signal()
	c.mu.Unlock()
	id := ""
	if answer != nil {
		id = answer(p)
	}
	if id == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}, nil
}

func (c *testClient) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.signal()
	c.mu.Unlock()
	return nil
}

func (c *testClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("cb-ls must not ask for terminals: it was not offered")
}
func (c *testClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no terminals")
}
func (c *testClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no terminals")
}
func (c *testClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no terminals")
}
func (c *testClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no terminals")
}

// toolCalls returns the tool_call updates, by id.
func (c *testClient) toolCalls() map[string]*sdk.SessionUpdateToolCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]*sdk.SessionUpdateToolCall{}
	for _, u := range c.updates {
		if tc := u.Update.ToolCall; tc != nil {
			out[string(tc.ToolCallId)] = tc
		}
	}
	return out
}

// text is every agent_message_chunk joined.
func (c *testClient) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, u := range c.updates {
		if m := u.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
		}
	}
	return b.String()
}

// env isolates the agent from the developer's environment and config
// files and points it at srv; it returns a project folder holding files.
func env(t *testing.T, srv *agenttest.Server, provider string, files map[string]string) string {
	t.Helper()
	for _, k := range []string{"CB_PROVIDER", "CB_MODEL", "CB_MAX_STEPS", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"} {
		t.Setenv(k, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("CB_BASE_URL", srv.URL())
	t.Setenv("CB_PROVIDER", provider)
	t.Setenv("CB_MODEL", "scripted")
	if provider == "anthropic" {
		t.Setenv("ANTHROPIC_API_KEY", testKey)
	} else {
		t.Setenv("OPENAI_API_KEY", testKey)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const testKey = "sk-acp-test-KEY-0123456789"

// connect starts the agent on a pipe and connects c to it as a client
// with the given fs capabilities, initialized.
func connect(t *testing.T, c *testClient, fs sdk.FileSystemCapabilities) *sdk.ClientSideConnection {
	t.Helper()
	return connectAs(t, c, fs, "acp-test")
}

// connectAs is connect for a client that introduces itself as name.
func connectAs(t *testing.T, c *testClient, fs sdk.FileSystemCapabilities, name string) *sdk.ClientSideConnection {
	t.Helper()
	return connectClient(t, c, fs, sdk.Implementation{Name: name, Version: "1"})
}

// connectClient is connect for a client that introduces itself as info.
func connectClient(t *testing.T, c *testClient, fs sdk.FileSystemCapabilities, info sdk.Implementation) *sdk.ClientSideConnection {
	t.Helper()
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	go func() {
		defer close(done)
		_ = acp.Serve(ctx, agentIn, agentOut, acp.Options{Version: "test", Logger: log, Run: acp.RunOptions{Mode: guard.ModeAuto, Over: config.Config{Review: c.review}}})
		agentOut.Close()
	}()
	conn := sdk.NewClientSideConnection(c, toAgent, fromAgent)
	conn.SetLogger(log)
	t.Cleanup(func() {
		toAgent.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the agent did not stop after the client went away")
		}
	})
	_, err := conn.Initialize(t.Context(), sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: fs},
		ClientInfo:         &info,
	})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn
}

var fullFS = sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}

// newSession opens a session on root.
func newSession(t *testing.T, conn *sdk.ClientSideConnection, root string) sdk.SessionId {
	t.Helper()
	res, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return res.SessionId
}

// prompt sends text and, when file is set, a link to it.
func prompt(t *testing.T, conn *sdk.ClientSideConnection, id sdk.SessionId, text, file string) (sdk.PromptResponse, error) {
	t.Helper()
	blocks := []sdk.ContentBlock{sdk.TextBlock(text)}
	if file != "" {
		blocks = append(blocks, sdk.ResourceLinkBlock(filepath.Base(file), string(fileuri.FromPath(file))))
	}
	return conn.Prompt(t.Context(), sdk.PromptRequest{SessionId: id, Prompt: blocks})
}

// promptAsync sends a prompt without waiting for its answer, which
// arrives on the channel.
func promptAsync(t *testing.T, conn *sdk.ClientSideConnection, id sdk.SessionId, text string) <-chan sdk.PromptResponse {
	got := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := prompt(t, conn, id, text, "")
		if err != nil {
			t.Errorf("session/prompt: %v", err)
		}
		got <- res
	}()
	return got
}

// cancelPrompt sends session/cancel and returns the prompt's answer,
// which must say cancelled.
func cancelPrompt(t *testing.T, conn *sdk.ClientSideConnection, id sdk.SessionId, got <-chan sdk.PromptResponse) sdk.PromptResponse {
	t.Helper()
	if err := conn.Cancel(t.Context(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-got:
		if res.StopReason != sdk.StopReasonCancelled {
			t.Errorf("stopReason %q, want cancelled", res.StopReason)
		}
		return res
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	return sdk.PromptResponse{}
}

func allow(sdk.RequestPermissionRequest) string  { return "allow" }
func reject(sdk.RequestPermissionRequest) string { return "reject" }
