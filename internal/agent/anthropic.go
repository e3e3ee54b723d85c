package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/catbuddy/cb-ls/internal/config"
)

// anthropicProvider speaks the Anthropic Messages API.
type anthropicProvider struct {
	providerInfo
	client anthropic.Client
	stream bool
	maxTok int
}

// defaultMaxTokens bounds an answer when maxTokens is unset: Anthropic's
// API requires a bound.
const defaultMaxTokens = 8192

func newAnthropic(cfg config.Config) *anthropicProvider {
	// The SDK appends v1/messages to the base URL; accept the ".../v1"
	// form users copy from OpenAI-style settings too.
	base := strings.TrimSuffix(strings.TrimSuffix(cfg.BaseURL, "/"), "/v1")
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(), // Config already resolved keys and URLs
		option.WithBaseURL(base + "/"),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(cfg.Retries()),
		option.WithHTTPClient(newModelHTTPClient(cfg.BaseURL, cfg.ModelIdle())),
		option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			if err := compactRequestBody(req); err != nil {
				return nil, err
			}
			return next(req)
		}),
	}
	maxTok := cfg.MaxTokens
	if maxTok <= 0 {
		maxTok = defaultMaxTokens
	}
	return &anthropicProvider{
		providerInfo: providerInfo{name: "anthropic", endpoint: cfg.BaseURL, model: cfg.Model, key: cfg.APIKey},
		client:       anthropic.NewClient(opts...),
		stream:       !cfg.DisableStreaming,
		maxTok:       maxTok,
	}
}

func (p *anthropicProvider) Name() string { return p.name }

func (p *anthropicProvider) params(req ModelRequest) anthropic.MessageNewParams {
	if len(req.Tools) == 0 {
		req.Messages = withoutToolHistory(req.Messages)
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(p.model), MaxTokens: int64(p.maxTok)}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		if m.Role == RoleAssistant {
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, c := range m.ToolCalls {
				input := json.RawMessage(c.Args)
				var obj map[string]any
				if json.Unmarshal(input, &obj) != nil || obj == nil {
					// The API accepts only an object; the model already got
					// the error result for the malformed original.
					input = json.RawMessage(`{}`)
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
			}
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(blocks...))
			continue
		}
		for _, r := range m.ToolResults {
			blocks = append(blocks, toolResultBlock(r))
		}
		if m.Text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(m.Text))
		}
		params.Messages = append(params.Messages, anthropic.NewUserMessage(blocks...))
	}
	for _, t := range req.Tools {
		var schema map[string]any
		_ = json.Unmarshal(t.InputSchema, &schema)
		in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		for k, v := range schema {
			if k != "properties" && k != "required" && k != "type" {
				in.ExtraFields[k] = v
			}
		}
		tool := anthropic.ToolParam{Name: t.Name, Description: anthropic.String(t.Description), InputSchema: in}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	return params
}

// toolResultBlock is r as a tool_result block, in the API's shortest
// form, since every result is resent in every later request of the run:
// the content as a string (the API takes a string or blocks; the SDK
// only blocks, hence the extra field), is_error only when true (false
// is the default).
func toolResultBlock(r ToolResult) anthropic.ContentBlockParamUnion {
	b := anthropic.ToolResultBlockParam{ToolUseID: r.CallID}
	b.SetExtraFields(map[string]any{"content": r.Output})
	if r.IsError {
		b.IsError = anthropic.Bool(true)
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &b}
}

// Complete implements Provider.
func (p *anthropicProvider) Complete(ctx context.Context, req ModelRequest, onText func(string)) (ModelResponse, error) {
	params := p.params(req)
	cacheBreakpoints(&params)
	call, stop := watchCall(ctx)
	defer stop(nil)
	if !p.stream {
		msg, err := p.client.Messages.New(call, params)
		if err != nil {
			return ModelResponse{}, p.failure(ctx, call, err, p.wrap)
		}
		u := msg.Usage
		out := ModelResponse{Stop: string(msg.StopReason), Refused: msg.StopReason == anthropic.StopReasonRefusal,
			Usage: anthropicUsage(u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens)}
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				out.Text += b.Text
			case "tool_use":
				out.ToolCalls = append(out.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Args: json.RawMessage(b.Input)})
			}
		}
		if out.Text != "" && onText != nil {
			onText(out.Text)
		}
		return out, nil
	}

	stream := p.client.Messages.NewStreaming(call, params)
	defer stream.Close()
	var (
		out             ModelResponse
		text            []byte
		blocks          = map[int64]*ToolCall{} // tool_use blocks by content index
		order           []int64
		finished        bool
		in, read, write int64 // input_tokens excludes the cache's
	)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			in, read, write = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				blocks[ev.Index] = &ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
				order = append(order, ev.Index)
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				text = append(text, ev.Delta.Text...)
				if onText != nil && ev.Delta.Text != "" {
					onText(ev.Delta.Text)
				}
			case "input_json_delta":
				// Kept raw (not through the SDK's accumulator, which
				// replaces malformed input with {}): the model must see
				// that its arguments were malformed.
				if c := blocks[ev.Index]; c != nil {
					c.Args = append(c.Args, ev.Delta.PartialJSON...)
				}
			}
		case "message_delta":
			out.Stop = string(ev.Delta.StopReason)
			out.Refused = ev.Delta.StopReason == anthropic.StopReasonRefusal
			// Cumulative counts; zero when the event leaves them out.
			out.Usage.OutputTokens = ev.Usage.OutputTokens
			if ev.Usage.InputTokens > 0 {
				in = ev.Usage.InputTokens
			}
			if ev.Usage.CacheReadInputTokens > 0 {
				read = ev.Usage.CacheReadInputTokens
			}
			if ev.Usage.CacheCreationInputTokens > 0 {
				write = ev.Usage.CacheCreationInputTokens
			}
		case "message_stop":
			finished = true
		}
	}
	if err := stream.Err(); err != nil {
		return ModelResponse{}, p.failure(ctx, call, err, p.wrap)
	}
	if se := stalled(call); se != nil {
		return ModelResponse{}, p.stalled(se) // however the SDK ended the stream
	}
	if !finished {
		if err := ctx.Err(); err != nil {
			return ModelResponse{}, err
		}
		return ModelResponse{}, p.fail(ErrBadResponse, 0, "the stream ended before the answer was complete")
	}
	out.Text = string(text)
	out.Usage = anthropicUsage(in, read, write, out.Usage.OutputTokens)
	for _, idx := range order {
		c := blocks[idx]
		if len(c.Args) == 0 {
			c.Args = json.RawMessage(`{}`) // a call without arguments streams no deltas
		}
		out.ToolCalls = append(out.ToolCalls, *c)
	}
	return out, nil
}

func (p *anthropicProvider) wrap(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" {
			msg = apiErr.RawJSON()
		}
		return p.fail(classify(apiErr.StatusCode, string(apiErr.Type()), msg), apiErr.StatusCode, msg)
	}
	return p.transportError(ctx, err)
}
