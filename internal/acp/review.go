package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The review option shows the review the next turn gets, not only the
// one chosen: "pending" needs the copy-on-write layer, and where the
// command sandbox cannot give it app runs the turn as "before" (see
// App.pendingView). The option then says "before" and why, so that a
// client's picker never claims what will not happen.

// reviewOption is the review select for cfg, the session's choice
// already in it (runEnv.config).
func reviewOption(cfg config.Config) sdk.SessionConfigOption {
	current := cfg.ReviewMode()
	pending := "Review changes at the end of each turn"
	if current == config.ReviewPending {
		if info := tools.OptionsFrom(cfg.Tools).Exec.SandboxInfo(); !info.Overlay {
			current = config.ReviewBefore
			why := info.OverlayReason
			if why == "" {
				why = "the copy-on-write workspace needs the command sandbox, which is " + info.Summary
			}
			pending += " (unavailable here: " + why + ")"
		}
	}
	values := sdk.SessionConfigSelectOptionsUngrouped{
		{Value: config.ReviewPending, Name: config.ReviewPending, Description: sdk.Ptr(pending)},
		{Value: config.ReviewBefore, Name: config.ReviewBefore, Description: sdk.Ptr("Review each change before it lands")},
	}
	return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{
		Id: optReview, Name: "Review", Description: sdk.Ptr("When you review the agent's changes (from the next turn)"),
		CurrentValue: sdk.SessionConfigValueId(current), Options: sdk.SessionConfigSelectOptions{Ungrouped: &values},
	}}
}
