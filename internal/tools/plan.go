package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// The update_plan tool has Codex's name and shape (a list of steps, each
// pending, in_progress or completed), which OpenAI's models are trained
// to keep up to date. It changes nothing: its plan is for the user, and
// each front end shows it (ACP as a plan update, the transcript and the
// command line as a checklist).

//go:embed plan.md
var planDescription string

// PlanStatus is a plan step's state.
type PlanStatus string

const (
	PlanPending    PlanStatus = "pending"
	PlanInProgress PlanStatus = "in_progress"
	PlanCompleted  PlanStatus = "completed"
)

// PlanStep is one step of a plan.
type PlanStep struct {
	Step   string     `json:"step"`
	Status PlanStatus `json:"status"`
}

// Plan is the model's whole plan, as the last update_plan call gave it.
type Plan struct {
	Explanation string     `json:"explanation,omitempty"`
	Steps       []PlanStep `json:"plan"`
}

// PlanToolName is the plan tool's name, for the front ends that show it.
const PlanToolName = "update_plan"

// maxPlanSteps bounds a plan: a longer one is not a plan a user reads.
const maxPlanSteps = 50

// UpdatePlan is the update_plan tool.
func UpdatePlan(*ToolContext) Tool {
	t := NewTool(PlanToolName, planDescription, func(ctx context.Context, in Plan) (Result, error) {
		if err := in.check(); err != nil {
			return Result{}, err
		}
		return Text("Plan updated."), nil
	})
	t.ReadOnly = true
	t.InputSchema = withStatusEnum(t.InputSchema)
	return t
}

// ParsePlan reads the arguments of an update_plan call; ok is false for
// arguments the tool itself refuses.
func ParsePlan(args json.RawMessage) (Plan, bool) {
	var p Plan
	if json.Unmarshal(args, &p) != nil || p.check() != nil {
		return Plan{}, false
	}
	return p, true
}

// check refuses what a user could not read as a plan.
func (p Plan) check() error {
	if len(p.Steps) == 0 {
		return fmt.Errorf("the plan has no steps")
	}
	if len(p.Steps) > maxPlanSteps {
		return fmt.Errorf("the plan has %d steps; keep it to %d", len(p.Steps), maxPlanSteps)
	}
	running := 0
	for i, s := range p.Steps {
		if strings.TrimSpace(s.Step) == "" {
			return fmt.Errorf("step %d is empty", i+1)
		}
		switch s.Status {
		case PlanPending, PlanCompleted:
		case PlanInProgress:
			running++
		default:
			return fmt.Errorf("step %d: status %q is not pending, in_progress or completed", i+1, s.Status)
		}
	}
	if running > 1 {
		return fmt.Errorf("%d steps are in_progress; at most one may be", running)
	}
	return nil
}

// Checklist renders the plan as Markdown task items, one line a step:
// "- [x] done", "- [ ] **doing** (in progress)", "- [ ] to do".
func (p Plan) Checklist() string {
	var b strings.Builder
	if e := strings.TrimSpace(p.Explanation); e != "" {
		b.WriteString(e + "\n\n")
	}
	for _, s := range p.Steps {
		switch s.Status {
		case PlanCompleted:
			fmt.Fprintf(&b, "- [x] %s\n", s.Step)
		case PlanInProgress:
			fmt.Fprintf(&b, "- [ ] **%s** (in progress)\n", s.Step)
		default:
			fmt.Fprintf(&b, "- [ ] %s\n", s.Step)
		}
	}
	return b.String()
}

// withStatusEnum names the three statuses in the schema, so that the
// model need not guess their spelling.
func withStatusEnum(schema json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic(err) // our own schema
	}
	items := m["properties"].(map[string]any)["plan"].(map[string]any)["items"].(map[string]any)
	items["properties"].(map[string]any)["status"].(map[string]any)["enum"] = []PlanStatus{PlanPending, PlanInProgress, PlanCompleted}
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}
