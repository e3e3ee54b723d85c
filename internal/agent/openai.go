package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/catbuddy/cb-ls/internal/config"
)

// openAIProvider speaks OpenAI chat completions: OpenAI itself and every
// server that copies its API (Ollama, llama.cpp, vLLM, LM Studio,
// OpenRouter).
type openAIProvider struct {
	providerInfo
	client openai.Client
	stream bool
	maxTok int
}

func newOpenAI(cfg config.Config) *openAIProvider {
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
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
	return &openAIProvider{
		providerInfo: providerInfo{name: "openai", endpoint: cfg.BaseURL, model: cfg.Model, key: cfg.APIKey},
		client:       openai.NewClient(opts...),
		stream:       !cfg.DisableStreaming,
		maxTok:       cfg.MaxTokens,
	}
}

func (p *openAIProvider) Name() string { return p.name }

func (p *openAIProvider) params(req ModelRequest) openai.ChatCompletionNewParams {
	if len(req.Tools) == 0 {
		req.Messages = withoutToolHistory(req.Messages)
	}
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleAssistant:
			var a openai.ChatCompletionAssistantMessageParam
			if m.Text != "" {
				a.Content.OfString = openai.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Args)},
					},
				})
			}
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			// Results first: OpenAI wants every tool message right after the
			// assistant message that called.
			for _, r := range m.ToolResults {
				msgs = append(msgs, openai.ToolMessage(r.Output, r.CallID))
			}
			if m.Text != "" {
				msgs = append(msgs, openai.UserMessage(m.Text))
			}
		}
	}
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(p.model), Messages: msgs}
	for _, t := range req.Tools {
		var schema shared.FunctionParameters
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema == nil {
			schema = shared.FunctionParameters{"type": "object"}
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: schema,
		}))
	}
	if p.maxTok > 0 {
		params.MaxCompletionTokens = openai.Int(int64(p.maxTok))
	}
	return params
}

// Complete implements Provider.
func (p *openAIProvider) Complete(ctx context.Context, req ModelRequest, onText func(string)) (ModelResponse, error) {
	params := p.params(req)
	call, stop := watchCall(ctx)
	defer stop(nil)
	if !p.stream {
		res, err := p.client.Chat.Completions.New(call, params)
		if err != nil {
			return ModelResponse{}, p.failure(ctx, call, err, p.wrap)
		}
		if len(res.Choices) == 0 {
			return ModelResponse{}, p.fail(ErrBadResponse, 0, "the answer has no choices")
		}
		c := res.Choices[0]
		out := ModelResponse{
			Text: c.Message.Content, Stop: c.FinishReason,
			Usage:   openAIUsage(res.Usage),
			Refused: c.FinishReason == "content_filter" || c.Message.Refusal != "",
		}
		if c.Message.Refusal != "" {
			out.Text += c.Message.Refusal
			out.Stop = "refusal"
		}
		if out.Text != "" && onText != nil {
			onText(out.Text)
		}
		for _, tc := range c.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: json.RawMessage(tc.Function.Arguments)})
		}
		return out, nil
	}

	params.StreamOptions.IncludeUsage = openai.Bool(true)
	stream := p.client.Chat.Completions.NewStreaming(call, params)
	defer stream.Close()
	var (
		out      ModelResponse
		text     []byte
		calls    []*ToolCall
		byIndex  = map[int64]int{} // stream index → calls position: chunks of several calls may interleave
		finished bool
	)
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() && chunk.Usage.PromptTokens+chunk.Usage.CompletionTokens > 0 {
			out.Usage = openAIUsage(chunk.Usage)
		}
		for _, ch := range chunk.Choices {
			// A refusal streams as its own deltas: it is the answer the
			// user sees.
			for _, d := range []string{ch.Delta.Content, ch.Delta.Refusal} {
				if d != "" {
					text = append(text, d...)
					if onText != nil {
						onText(d)
					}
				}
			}
			if ch.Delta.Refusal != "" {
				out.Refused = true
			}
			for _, tc := range ch.Delta.ToolCalls {
				pos, ok := byIndex[tc.Index]
				if ok && tc.ID != "" && calls[pos].ID != "" && tc.ID != calls[pos].ID {
					// Some servers (older Ollama) send every call of a turn
					// with index 0, each whole: a new id is a new call.
					ok = false
				}
				if !ok {
					calls = append(calls, &ToolCall{})
					pos = len(calls) - 1
					byIndex[tc.Index] = pos
				}
				c := calls[pos]
				if tc.ID != "" {
					c.ID = tc.ID
				}
				if tc.Function.Name != "" {
					c.Name = tc.Function.Name
				}
				c.Args = append(c.Args, tc.Function.Arguments...)
			}
			if ch.FinishReason != "" {
				out.Stop, finished = ch.FinishReason, true
				out.Refused = out.Refused || ch.FinishReason == "content_filter"
				if out.Refused && out.Stop == "stop" {
					out.Stop = "refusal" // a message refusal
				}
			}
		}
	}
	if err := stream.Err(); err != nil {
		return ModelResponse{}, p.failure(ctx, call, err, p.wrap)
	}
	if se := stalled(call); se != nil {
		return ModelResponse{}, p.stalled(se) // however the SDK ended the stream
	}
	if !finished {
		// A stream that ends without a finish reason was cut: its last
		// tool call may be half its arguments.
		if err := ctx.Err(); err != nil {
			return ModelResponse{}, err
		}
		return ModelResponse{}, p.fail(ErrBadResponse, 0, "the stream ended before the answer was complete")
	}
	out.Text = string(text)
	for i, c := range calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i) // some local servers omit ids
		}
		out.ToolCalls = append(out.ToolCalls, *c)
	}
	return out, nil
}

// openAIUsage reads usage: prompt_tokens counts cached tokens too.
func openAIUsage(u openai.CompletionUsage) Usage {
	return Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, CachedInputTokens: u.PromptTokensDetails.CachedTokens}
}

// wrap turns an SDK error into a *ProviderError.
func (p *openAIProvider) wrap(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" {
			msg = apiErr.RawJSON()
		}
		return p.fail(classify(apiErr.StatusCode, apiErr.Code+" "+apiErr.Type, msg), apiErr.StatusCode, msg)
	}
	return p.transportError(ctx, err)
}
