package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// Provider is a model behind one wire format. Implementations are safe
// for concurrent use: one Provider serves every run.
type Provider interface {
	// Name is "openai" or "anthropic", for messages.
	Name() string
	// Complete sends one model turn. onText (may be nil) receives text
	// deltas as they stream. A failure is a *ProviderError (or ctx's error
	// when the run was cancelled).
	Complete(ctx context.Context, req ModelRequest, onText func(delta string)) (ModelResponse, error)
}

// ModelRequest is one model turn's input, independent of wire format.
type ModelRequest struct {
	System   string
	Messages []Message
	Tools    []tools.Spec // nil offers no tools (the final "summarise" turn)
}

// Role is who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one conversation message. A user message may carry the
// results of the previous assistant message's tool calls.
// The JSON form is how a conversation is stored to be continued later.
type Message struct {
	Role        Role         `json:"role"`
	Text        string       `json:"text,omitempty"`
	ToolCalls   []ToolCall   `json:"toolCalls,omitempty"`   // assistant
	ToolResults []ToolResult `json:"toolResults,omitempty"` // user
}

// ToolCall is one tool call the model made.
// Its JSON form (conversation.go) keeps Args as a string.
type ToolCall struct {
	ID   string
	Name string
	Args json.RawMessage // as the model sent them; may be malformed
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string `json:"callId"`
	Name    string `json:"name"`
	Output  string `json:"output"`
	IsError bool   `json:"isError,omitempty"`
	// Read marks a read_file result whose text may go out of date
	// (stale.go). It lives in memory, across a conversation's turns, and
	// is not stored: a conversation restored from disk has none.
	Read *ReadMark `json:"-"`
}

// ModelResponse is one model turn's answer.
type ModelResponse struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	// Stop is the provider's stop reason ("stop", "tool_calls", "end_turn",
	// "max_tokens", …).
	Stop string
	// Refused is a model that declined to answer: Anthropic's stop reason
	// "refusal", OpenAI's finish reason "content_filter" or a message
	// refusal (whose text is then Text).
	Refused bool
}

// Sentinel errors a *ProviderError wraps, for errors.Is.
var (
	ErrAuth          = errors.New("authentication failed")
	ErrModelNotFound = errors.New("unknown model")
	ErrUnreachable   = errors.New("endpoint unreachable")
	ErrContextLength = errors.New("context length exceeded")
	ErrRateLimited   = errors.New("rate limited")
	ErrServer        = errors.New("server error")
	ErrBadResponse   = errors.New("bad response")
	ErrRequest       = errors.New("request refused")
	// ErrStalled is a model that sent nothing for the idle limit
	// (modelIdleTimeout): not retried, the step fails at once.
	ErrStalled = errors.New("the model sent nothing")
)

// ProviderError is a model call that failed, with what a user needs to
// fix it in one line. It never contains the API key.
type ProviderError struct {
	Provider string // "openai", "anthropic"
	Endpoint string // base URL
	Model    string
	Kind     error // one of the sentinel errors above
	Status   int   // HTTP status, 0 if none
	Detail   string
}

func (e *ProviderError) Error() string {
	var b strings.Builder
	if e.Kind == ErrStalled {
		// The detail already names the endpoint and the wait.
		fmt.Fprintf(&b, "%s: %s — %s", e.Provider, e.Detail, e.hint())
		return b.String()
	}
	fmt.Fprintf(&b, "%s at %s: %v", e.Provider, e.Endpoint, e.Kind)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if hint := e.hint(); hint != "" {
		b.WriteString(" — ")
		b.WriteString(hint)
	}
	return b.String()
}

func (e *ProviderError) Unwrap() error { return e.Kind }

func (e *ProviderError) hint() string {
	switch e.Kind {
	case ErrAuth:
		env := "OPENAI_API_KEY"
		if e.Provider == "anthropic" {
			env = "ANTHROPIC_API_KEY"
		}
		// Every front end names its own way to give a key.
		return "check " + env + ", apiKey in the user config, or the editor's key (VS Code: Agent: Set API Key…)"
	case ErrModelNotFound:
		return fmt.Sprintf("model %q is not served there; set CB_MODEL or the model setting", e.Model)
	case ErrUnreachable:
		return "is the server running? set CB_BASE_URL or the baseUrl setting"
	case ErrStalled:
		return "not retried; if the model is this slow to answer, raise modelIdleTimeout (seconds)"
	case ErrContextLength:
		return "the conversation no longer fits the model's context; start a new run with a smaller selection"
	}
	return ""
}

// classify turns an HTTP status and the provider's error code/message
// into a sentinel.
func classify(status int, code, msg string) error {
	lc := strings.ToLower(code + " " + msg)
	switch {
	case status == 401 || status == 403:
		return ErrAuth
	case strings.Contains(lc, "context_length") || strings.Contains(lc, "context length") ||
		strings.Contains(lc, "prompt is too long") || strings.Contains(lc, "maximum context") ||
		strings.Contains(lc, "too many tokens"):
		return ErrContextLength
	case status == 404 || strings.Contains(lc, "model_not_found") ||
		(strings.Contains(lc, "model") && (strings.Contains(lc, "not found") || strings.Contains(lc, "does not exist"))):
		return ErrModelNotFound
	case status == 429:
		return ErrRateLimited
	case status >= 500:
		return ErrServer
	}
	return ErrRequest
}

// transportError wraps a failure that has no HTTP answer: connection
// refused, DNS, a cut stream.
func (p providerInfo) transportError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var se *stallError
	if errors.As(err, &se) {
		return p.stalled(se)
	}
	kind := ErrBadResponse
	var netErr net.Error
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if errors.As(err, &opErr) && opErr.Op == "dial" || errors.As(err, &dnsErr) ||
		strings.Contains(err.Error(), "connection refused") || errors.As(err, &netErr) && netErr.Timeout() {
		kind = ErrUnreachable
	}
	return p.fail(kind, 0, err.Error())
}

// providerInfo is what every provider knows to describe its errors.
type providerInfo struct {
	name, endpoint, model, key string
}

// stalled is the error of a call the idle limit ended.
func (p providerInfo) stalled(se *stallError) *ProviderError {
	return p.fail(ErrStalled, 0, se.Error())
}

// failure turns err, the error of a model call watched by call (see
// watchCall) in the run's ctx, into what Complete returns: the run's
// own cancellation first, then a stall, then what wrap makes of it.
func (p providerInfo) failure(ctx, call context.Context, err error, wrap func(context.Context, error) error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if se := stalled(call); se != nil {
		return p.stalled(se)
	}
	return wrap(ctx, err)
}

func (p providerInfo) fail(kind error, status int, detail string) *ProviderError {
	return &ProviderError{
		Provider: p.name, Endpoint: p.endpoint, Model: p.model,
		Kind: kind, Status: status, Detail: redactError(oneLine(detail), p.key),
	}
}

// redact removes key from s: keys never reach a message, a log or a
// transcript.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// redactError also drops the masked form of a key that providers echo in
// errors ("Incorrect API key provided: sk-abc***********wxyz").
func redactError(s, key string) string {
	return maskedKey.ReplaceAllString(redact(s, key), "[redacted]")
}

var maskedKey = regexp.MustCompile(`\S*\*{4,}\S*`)

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// NewProvider returns the provider cfg names. cfg must be resolved (as
// Load returns it): provider, model and base URL set.
func NewProvider(cfg config.Config) (Provider, error) {
	switch cfg.Provider {
	case "openai":
		return newOpenAI(cfg), nil
	case "anthropic":
		return newAnthropic(cfg), nil
	case "":
		return nil, ErrNoModel
	}
	return nil, fmt.Errorf("unknown provider %q (want openai or anthropic)", cfg.Provider)
}

// withoutToolHistory rewrites msgs for a request that offers no tools:
// providers refuse tool calls and results in the history of such a
// request (Anthropic: "requests which include tool_use or tool_result
// blocks must define tools"), so they become plain text.
func withoutToolHistory(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		var b strings.Builder
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "[called %s %s]\n", c.Name, truncateText(string(c.Args), 500))
		}
		for _, r := range m.ToolResults {
			status := "result"
			if r.IsError {
				status = "error"
			}
			fmt.Fprintf(&b, "[%s of %s]\n%s\n", status, r.Name, truncateText(r.Output, 2000))
		}
		text := m.Text
		if b.Len() > 0 {
			text = strings.TrimSpace(b.String() + "\n" + m.Text)
		}
		out[i] = Message{Role: m.Role, Text: text}
	}
	return out
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
