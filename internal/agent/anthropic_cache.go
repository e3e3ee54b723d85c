package agent

import "github.com/anthropics/anthropic-sdk-go/v2"

// cacheBreakpoints sets Anthropic's prompt-cache breakpoints
// (cache_control), as the API and the SDK document them: on the last
// tool (caching the tool definitions), on the system prompt (tools and
// system), and on the last block of the last message (the whole
// conversation so far, which the next turn extends, so each turn reads
// the previous turn's prefix from the cache). Anthropic allows four
// breakpoints; prompts under the model's minimum (1024 tokens for most)
// are simply not cached.
func cacheBreakpoints(params *anthropic.MessageNewParams) {
	cc := anthropic.NewCacheControlEphemeralParam()
	if n := len(params.Tools); n > 0 {
		if t := params.Tools[n-1].OfTool; t != nil {
			t.CacheControl = cc
		}
	}
	if n := len(params.System); n > 0 {
		params.System[n-1].CacheControl = cc
	}
	if n := len(params.Messages); n > 0 {
		var blocks []anthropic.ContentBlockParamUnion
		switch m := params.Messages[n-1]; {
		case m.OfUser != nil:
			blocks = m.OfUser.Content
		case m.OfAssistant != nil:
			blocks = m.OfAssistant.Content
		}
		if k := len(blocks); k > 0 {
			if p := blocks[k-1].GetCacheControl(); p != nil {
				*p = cc
			}
		}
	}
}

// anthropicUsage reads Anthropic's usage, whose input_tokens leaves out
// the tokens read from or written to the cache: Usage.InputTokens counts
// them all.
func anthropicUsage(in, cacheRead, cacheWrite, out int64) Usage {
	return Usage{
		InputTokens: in + cacheRead + cacheWrite, OutputTokens: out,
		CachedInputTokens: cacheRead, CacheWriteTokens: cacheWrite,
	}
}
