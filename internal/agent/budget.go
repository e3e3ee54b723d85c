package agent

import (
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
)

// budget estimates how many tokens a request will take, cheaply enough to
// run before every model turn: message sizes are cached (messages are
// never changed once sent, except by trimming or compaction, which reset
// the cache), and the bytes-per-token ratio is calibrated from the input
// tokens the provider reports for each request.
type budget struct {
	window int // the model's context window, tokens

	sizes      []int   // wire-size estimate of req.Messages[i]
	fixed      int     // system prompt and tools, for fixedOf
	fixedOf    string  // the system prompt fixed was computed for
	fixedTools int     // len(req.Tools) fixed was computed for
	perToken   float64 // bytes per token
}

// Bytes per token: before the first answer a conservative guess (code
// tokenises at about 3.5 bytes per token); afterwards calibrated within
// these bounds.
const (
	initialBytesPerToken = 3.5
	minBytesPerToken     = 1.5
	maxBytesPerToken     = 6
)

// Thresholds, as fractions of the window: a request estimated above
// compactAt is made smaller first; trimming and compaction aim at
// compactTo so that it does not happen again at the next turn.
const (
	compactAt = 0.8
	compactTo = 0.5
)

func newBudget(window int) *budget {
	return &budget{window: window, perToken: initialBytesPerToken}
}

// tokens estimates req's input tokens.
func (b *budget) tokens(req *ModelRequest) int {
	return int(float64(b.bytes(req)) / b.perToken)
}

// over reports whether req is estimated above frac of the window.
func (b *budget) over(req *ModelRequest, frac float64) bool {
	return float64(b.tokens(req)) > frac*float64(b.window)
}

// bytes is the wire-size estimate of req: what it takes as JSON, with
// the escapes of newlines, quotes and tabs counted.
func (b *budget) bytes(req *ModelRequest) int {
	if b.fixedOf != req.System || b.fixedTools != len(req.Tools) {
		n := wireLen(req.System)
		for _, t := range req.Tools {
			n += len(t.Name) + wireLen(t.Description) + len(t.InputSchema) + 40
		}
		b.fixed, b.fixedOf, b.fixedTools = n, req.System, len(req.Tools)
	}
	if len(b.sizes) > len(req.Messages) {
		b.sizes = b.sizes[:0] // the conversation was replaced
	}
	for i := len(b.sizes); i < len(req.Messages); i++ {
		b.sizes = append(b.sizes, messageLen(req.Messages[i]))
	}
	n := b.fixed
	for _, s := range b.sizes {
		n += s
	}
	return n
}

// reset forgets the cached sizes from message i on (they were rewritten).
func (b *budget) reset(i int) {
	if i < len(b.sizes) {
		b.sizes = b.sizes[:i]
	}
}

// calibrate adjusts the ratio from the provider's count of the input
// tokens of req.
func (b *budget) calibrate(req *ModelRequest, inputTokens int64) {
	if inputTokens <= 0 {
		return
	}
	r := float64(b.bytes(req)) / float64(inputTokens)
	b.perToken = min(max(r, minBytesPerToken), maxBytesPerToken)
}

// refused learns from the provider refusing req as too long although the
// estimate let it through: the real window is smaller than req, and the
// estimate was too low.
func (b *budget) refused(req *ModelRequest) {
	b.window = max(min(b.window, b.tokens(req)), config.MinContextWindow)
	b.perToken = max(b.perToken*0.8, minBytesPerToken)
}

// messageLen is the wire-size estimate of one message.
func messageLen(m Message) int {
	n := 30 + wireLen(m.Text)
	for _, c := range m.ToolCalls {
		n += 60 + len(c.ID) + len(c.Name) + wireLen(string(c.Args))
	}
	for _, r := range m.ToolResults {
		n += 60 + len(r.CallID) + wireLen(r.Output)
	}
	return n
}

// wireLen is len(s) as a JSON string: newlines, tabs, quotes and
// backslashes take two bytes there.
func wireLen(s string) int {
	return len(s) + strings.Count(s, "\n") + strings.Count(s, "\t") + strings.Count(s, `"`) + strings.Count(s, `\`)
}
