package tools

import "context"

// optionsKey is the context key of a run's tool options.
type optionsKey struct{}

// WithOptions returns ctx carrying the tool options of one run. The
// built-in tools use them instead of ToolContext.Options, so settings
// that change between runs (a project trusted or untrusted, an editor
// setting changed) apply to the next run without rebuilding the tools,
// while a run that is going on keeps the options it started with.
func WithOptions(ctx context.Context, o Options) context.Context {
	return context.WithValue(ctx, optionsKey{}, o)
}

// options returns the options of the run ctx belongs to, or tc.Options
// when ctx carries none (a one-off call, a test).
func (tc *ToolContext) options(ctx context.Context) Options {
	if o, ok := ctx.Value(optionsKey{}).(Options); ok {
		return o
	}
	return tc.Options
}
