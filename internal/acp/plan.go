package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// planUpdate is the plan update for an update_plan call's arguments; ok
// is false for a plan the tool refused (the model is told, the client
// is shown nothing). An update_plan call is shown only as this update,
// never as a tool call: ACP clients show the plan in a place of its own.
// Every entry is of medium priority: cb-ls's plans rank nothing.
func planUpdate(args json.RawMessage) (sdk.SessionUpdate, bool) {
	p, ok := tools.ParsePlan(args)
	if !ok {
		return sdk.SessionUpdate{}, false
	}
	entries := make([]sdk.PlanEntry, len(p.Steps))
	for i, s := range p.Steps {
		entries[i] = sdk.PlanEntry{Content: s.Step, Priority: sdk.PlanEntryPriorityMedium, Status: planStatus(s.Status)}
	}
	return sdk.UpdatePlan(entries...), true
}

func planStatus(s tools.PlanStatus) sdk.PlanEntryStatus {
	switch s {
	case tools.PlanInProgress:
		return sdk.PlanEntryStatusInProgress
	case tools.PlanCompleted:
		return sdk.PlanEntryStatusCompleted
	}
	return sdk.PlanEntryStatusPending
}
