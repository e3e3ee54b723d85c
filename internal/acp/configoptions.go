package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/guard"
)

// Session config options: what a client shows as pickers in its agent
// panel (Zed, JetBrains, CodeCompanion's model picker), sent with
// session/new and session/load, changed with session/set_config_option
// and reported with config_option_update. Each option is a select.
const (
	// optModel is the model the session's next turns use.
	optModel = "model"
	// optMode is what the agent may touch (guard.Mode): the whole folder
	// (project), or auto, which keeps to .catbuddy/workspace in the
	// home directory and "/".
	optMode = "mode"
	// optReview is when the user reviews the agent's changes
	// (config.Review): pending, asked once at the end of each turn, or
	// before, asked per change. It applies from the next turn.
	optReview = "review"
)

// modeValues are the modes offered; a session started with --mode
// internal offers that too, so that its current value is a choice.
var modeValues = []guard.Mode{guard.ModeAuto, guard.ModeProject}

// sessionChoices are a session's own settings, above the configuration
// files; "" / the zero value keep the configured one.
type sessionChoices struct {
	model  string
	mode   guard.Mode
	review string
}

// configOptions is the session's full set of options with their current
// values.
func (s *acpSession) configOptions(ctx context.Context) []sdk.SessionConfigOption {
	cfg, err := s.run.config(ctx)
	if err != nil {
		s.a.log.Warn("acp: config options", "session", s.id, "error", err)
		return []sdk.SessionConfigOption{}
	}
	s.mu.Lock()
	mode := s.choices.mode
	s.mu.Unlock()
	var models sdk.SessionConfigSelectOptionsUngrouped
	for _, id := range availableModels(ctx, cfg) {
		models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(id), Name: id})
	}
	var modes sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range offeredModes(mode) {
		modes = append(modes, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.String()), Name: m.String(), Description: sdk.Ptr(modeDescription(m))})
	}
	return []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{
			Id: optModel, Name: "Model", Category: sdk.Ptr(sdk.SessionConfigOptionCategoryModel),
			Description:  sdk.Ptr(fmt.Sprintf("The %s model the next turns use (endpoint %s)", cfg.Provider, cfg.BaseURL)),
			CurrentValue: sdk.SessionConfigValueId(cfg.Model), Options: sdk.SessionConfigSelectOptions{Ungrouped: &models},
		}},
		{Select: &sdk.SessionConfigOptionSelect{
			Id: optMode, Name: "Mode", Category: sdk.Ptr(sdk.SessionConfigOptionCategoryMode),
			Description:  sdk.Ptr("What the agent may touch in the session's folder"),
			CurrentValue: sdk.SessionConfigValueId(mode.String()), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modes},
		}},
		reviewOption(cfg),
	}
}

func offeredModes(current guard.Mode) []guard.Mode {
	if slices.Contains(modeValues, current) {
		return modeValues
	}
	return append(slices.Clone(modeValues), current)
}

func modeDescription(m guard.Mode) string {
	switch m {
	case guard.ModeProject:
		return "the whole folder except .catbuddy/"
	case guard.ModeInternal:
		return "only .catbuddy/workspace"
	}
	return "the whole folder, except in the home directory or / (then only .catbuddy/workspace)"
}

// SetSessionConfigOption implements sdk.Agent: a model the endpoint
// offers, a mode or a review. The answer and a config_option_update
// carry every option's new value; a model and a review apply from the
// next turn, a mode at once.
func (a *Agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	var sid sdk.SessionId
	var id sdk.SessionConfigId
	switch {
	case p.ValueId != nil:
		sid, id = p.ValueId.SessionId, p.ValueId.ConfigId
	case p.Boolean != nil:
		sid, id = p.Boolean.SessionId, p.Boolean.ConfigId
	}
	s, err := a.session(sid)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if id != optModel && id != optMode && id != optReview {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]string{"error": fmt.Sprintf("unknown config option %q: cb-ls offers %q, %q and %q", id, optModel, optMode, optReview)})
	}
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]string{"error": fmt.Sprintf("config option %q takes one of its values (a string), not a boolean", id)})
	}
	value := string(p.ValueId.Value)
	if err := s.choose(ctx, id, value); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	opts := s.configOptions(ctx)
	s.update(ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: opts}})
	a.log.Info("acp: config option set", "session", s.id, "option", id, "value", value)
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// choose applies one option's value, refusing a value not offered.
func (s *acpSession) choose(ctx context.Context, id sdk.SessionConfigId, value string) error {
	switch id {
	case optModel:
		cfg, err := s.run.config(ctx)
		if err != nil {
			return err
		}
		models := availableModels(ctx, cfg)
		if !slices.Contains(models, value) {
			return sdk.NewInvalidParams(map[string]string{"error": fmt.Sprintf("unknown model %q: %s offers %s", value, cfg.BaseURL, strings.Join(models, ", "))})
		}
		s.mu.Lock()
		s.choices.model = value
		s.mu.Unlock()
	case optMode:
		s.mu.Lock()
		current := s.choices.mode
		s.mu.Unlock()
		m, err := guard.ParseMode(value)
		if err != nil || !slices.Contains(offeredModes(current), m) {
			return sdk.NewInvalidParams(map[string]string{"error": fmt.Sprintf("unknown mode %q: cb-ls offers %s", value, modeNames(offeredModes(current)))})
		}
		if err := s.run.app.Guard.SetMode(m); err != nil {
			return sdk.NewInternalError(errorData(err))
		}
		s.mu.Lock()
		s.choices.mode = m
		s.mu.Unlock()
	case optReview:
		if value != config.ReviewPending && value != config.ReviewBefore {
			return sdk.NewInvalidParams(map[string]string{"error": fmt.Sprintf("unknown review %q: cb-ls offers %s, %s", value, config.ReviewPending, config.ReviewBefore)})
		}
		s.mu.Lock()
		s.choices.review = value
		s.mu.Unlock()
	}
	return nil
}

func modeNames(ms []guard.Mode) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.String()
	}
	return strings.Join(names, ", ")
}
