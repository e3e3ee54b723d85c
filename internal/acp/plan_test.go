package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
)

func planCall(steps ...[2]string) agenttest.ToolCall {
	var plan []map[string]string
	for _, s := range steps {
		plan = append(plan, map[string]string{"step": s[0], "status": s[1]})
	}
	return agenttest.Call("update_plan", map[string]any{"plan": plan})
}

// The model's update_plan calls are plan updates, in order, each the
// whole plan; they are not shown as tool calls. A plan the tool refuses
// is not shown, and the model is told why.
func TestPlanUpdates(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			srv := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
				agenttest.CallTurn(planCall([2]string{"Read calc.go", "in_progress"}, [2]string{"Fix Add", "pending"})),
				agenttest.CallTurn(planCall([2]string{"Read calc.go", "in_progress"}, [2]string{"Fix Add", "in_progress"})),
				agenttest.CallTurn(planCall([2]string{"Read calc.go", "completed"}, [2]string{"Fix Add", "in_progress"})),
				agenttest.TextTurn("Planned."),
			}})
			root := env(t, srv, provider, nil)
			c := newTestClient(t)
			conn := connect(t, c, fullFS)
			id := newSession(t, conn, root)
			res, err := prompt(t, conn, id, "fix it step by step", "")
			if err != nil || res.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("session/prompt: %v %v", res.StopReason, err)
			}
			var plans []string
			c.mu.Lock()
			for _, u := range c.updates {
				if p := u.Update.Plan; p != nil {
					var entries []string
					for _, e := range p.Entries {
						entries = append(entries, e.Content+"="+string(e.Status)+"/"+string(e.Priority))
					}
					plans = append(plans, strings.Join(entries, ", "))
				}
			}
			c.mu.Unlock()
			want := []string{
				"Read calc.go=in_progress/medium, Fix Add=pending/medium",
				"Read calc.go=completed/medium, Fix Add=in_progress/medium",
			}
			if strings.Join(plans, "\n") != strings.Join(want, "\n") {
				t.Errorf("plan updates:\n%s\nwant:\n%s", strings.Join(plans, "\n"), strings.Join(want, "\n"))
			}
			if calls := c.toolCalls(); len(calls) != 0 {
				t.Errorf("update_plan shown as tool calls: %v", calls)
			}
			// Loaded from another connection, the stored run replays the
			// plans, not their calls.
			c2 := newTestClient(t)
			conn2 := connect(t, c2, fullFS)
			if _, err := conn2.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}}); err != nil {
				t.Fatalf("session/load: %v", err)
			}
			replayed := 0
			c2.mu.Lock()
			for _, u := range c2.updates {
				if u.Update.Plan != nil {
					replayed++
				}
			}
			c2.mu.Unlock()
			if replayed != 2 {
				t.Errorf("%d plans replayed, want the 2 shown live", replayed)
			}
			if calls := c2.toolCalls(); len(calls) != 0 {
				t.Errorf("update_plan replayed as tool calls: %v", calls)
			}
			got := srv.Requests()[2].ToolResults()
			if len(got) == 0 || !strings.Contains(got[len(got)-1].Content, "2 steps are in_progress") {
				t.Errorf("the model was not told why its plan was refused: %+v", got)
			}
		})
	}
}
