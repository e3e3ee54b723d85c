package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// update_plan takes a whole plan of pending, in_progress and completed
// steps; anything a user could not read as a plan goes back to the model
// with the reason.
func TestUpdatePlan(t *testing.T) {
	tool := UpdatePlan(nil)
	reg := NewRegistry()
	if err := reg.Register(tool); err != nil {
		t.Fatal(err)
	}
	run := func(args string) Result {
		t.Helper()
		res, err := reg.Execute(t.Context(), PlanToolName, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		return res
	}
	ok := `{"explanation":"Fix Add first.","plan":[{"step":"Read calc.go","status":"completed"},{"step":"Fix Add","status":"in_progress"},{"step":"Run the tests","status":"pending"}]}`
	if res := run(ok); res.IsError || res.Output != "Plan updated." {
		t.Errorf("a good plan: %+v", res)
	}
	p, parsed := ParsePlan(json.RawMessage(ok))
	if !parsed || len(p.Steps) != 3 || p.Steps[1].Status != PlanInProgress {
		t.Fatalf("ParsePlan = %+v, %v", p, parsed)
	}
	want := "Fix Add first.\n\n- [x] Read calc.go\n- [ ] **Fix Add** (in progress)\n- [ ] Run the tests\n"
	if got := p.Checklist(); got != want {
		t.Errorf("checklist:\n%s\nwant:\n%s", got, want)
	}
	for args, why := range map[string]string{
		`{"plan":[]}`: "no steps",
		`{"plan":[{"step":"a","status":"done"}]}`:                                            `status "done" is not pending, in_progress or completed`,
		`{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`: "2 steps are in_progress",
		`{"plan":[{"step":" ","status":"pending"}]}`:                                         "step 1 is empty",
		`{"steps":[]}`: `missing required argument "plan"`,
	} {
		res := run(args)
		if !res.IsError || !strings.Contains(res.Output, why) {
			t.Errorf("%s: %+v, want an error saying %q", args, res, why)
		}
		if _, parsed := ParsePlan(json.RawMessage(args)); parsed {
			t.Errorf("ParsePlan accepted %s", args)
		}
	}
	var schema struct {
		Properties struct {
			Plan struct {
				Items struct {
					Properties struct {
						Status struct {
							Enum []string `json:"enum"`
						} `json:"status"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"plan"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(schema.Properties.Plan.Items.Properties.Status.Enum, ","); got != "pending,in_progress,completed" {
		t.Errorf("status enum %q", got)
	}
}
