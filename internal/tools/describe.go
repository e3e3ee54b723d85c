package tools

import "context"

// SpecFor is the spec of the tool called name as the run whose settings
// ctx carries offers it: its description is the one Tool.Describe gives
// for that run, where the tool has one.
func (r *Registry) SpecFor(ctx context.Context, name string) (Spec, bool) {
	t, ok := r.Get(name)
	if !ok {
		return Spec{}, false
	}
	return t.SpecFor(ctx), true
}

// SpecFor is t's spec for the run whose settings ctx carries.
func (t Tool) SpecFor(ctx context.Context) Spec {
	s := t.Spec
	if t.Describe != nil {
		if d := t.Describe(ctx); d != "" {
			s.Description = d
		}
	}
	return s
}
