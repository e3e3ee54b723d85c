package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// A project's .catbuddy/config.json is usually committed: whoever wrote
// the repository wrote it. Its settings fall in two kinds.
//
//   - Harmless ones apply at once: the model name, the step, token and
//     retry limits, streaming, custom commands with new ids, and anything
//     that narrows a guard (a shorter exec timeout, the sandbox on, a web
//     allow-list that is a subset of the user's own).
//   - The rest need the user's trust first: provider and baseUrl (the
//     user's key and code would go there), mode, settings that loosen a
//     guard, a custom command that replaces the user's own, and any
//     setting this file does not know to be harmless (so a field added to
//     Config later is safe by default).
//
// No custom command takes a built-in's id (commandcheck.go), and until the project is trusted a command that looks like an answer-only
// built-in (explain) stays answer-only.

// Defaults of the exec tool (tools.ExecOptions) a project may narrow but
// not exceed without trust.
const (
	defaultExecTimeout    = 120
	defaultExecMaxTimeout = 600
)

// harmlessKeys are the top-level settings a project applies untrusted.
var harmlessKeys = []string{"model", "maxSteps", "maxTokens", "maxRetries", "disableStreaming", "contextWindow", "modelIdleTimeout", "questionTimeout"}

// Ignored is a project setting that was not applied, and why.
type Ignored struct {
	// Key is the setting's JSON path ("baseUrl", "tools.execSandbox",
	// "customCommands.explain").
	Key string
	// Value is what the project asks for, as JSON.
	Value string
	// Reason says why: it needs trust, or it can never apply.
	Reason string
}

// String is "baseUrl = \"http://…\" (needs trust)".
func (i Ignored) String() string {
	return fmt.Sprintf("%s = %s (%s)", i.Key, i.Value, i.Reason)
}

// IgnoredSummary says in one line which project settings did not apply
// and why, or "" when all did.
func (l Loaded) IgnoredSummary(root string) string {
	if len(l.Ignored) == 0 {
		return ""
	}
	parts := make([]string, len(l.Ignored))
	for i, ig := range l.Ignored {
		parts[i] = ig.String()
	}
	return fmt.Sprintf("ignoring settings of %s: %s", filepath.Join(root, filepath.FromSlash(ProjectConfigFile)), strings.Join(parts, "; "))
}

// Reasons an Ignored names.
const (
	ReasonNeedsTrust = "needs trust"
	ReasonBuiltin    = "a custom command never takes a built-in command's id (fix, explain, ask, run)"
)

// splitProject returns the part of the project's settings p that applies,
// and what it ignored. user is the configuration from the user's own
// sources below the project (user file, defaults), against which
// narrowing is judged. trusted projects apply everything.
func splitProject(p, user Config, trusted bool) (Config, []Ignored) {
	var ignored []Ignored
	skip := func(key string, v any, reason string) {
		b, _ := json.Marshal(v)
		ignored = append(ignored, Ignored{Key: key, Value: string(b), Reason: reason})
	}
	var cmds []Command
	for _, c := range p.CustomCommands {
		switch {
		case trusted:
			cmds = append(cmds, c)
		case slices.ContainsFunc(user.CustomCommands, func(u Command) bool { return u.ID == c.ID }):
			skip("customCommands."+c.ID, c.Prompt, ReasonNeedsTrust+": it replaces your own command")
		default:
			if resemblesAnswerOnly(c) {
				c.ReadOnly = true
			}
			cmds = append(cmds, c)
		}
	}
	p.CustomCommands = nil
	if trusted {
		p.CustomCommands = cmds
		return p, ignored
	}

	var kept Config
	kept.CustomCommands = cmds
	src, dst := reflect.ValueOf(p), reflect.ValueOf(&kept).Elem()
	for i := range src.NumField() {
		f := src.Type().Field(i)
		key := jsonName(f)
		v := src.Field(i)
		if key == "" || v.IsZero() || key == "customCommands" || key == "tools" {
			continue
		}
		if slices.Contains(harmlessKeys, key) {
			dst.Field(i).Set(v)
			continue
		}
		skip(key, v.Interface(), ReasonNeedsTrust)
	}
	var toolsIgnored []Ignored
	kept.Tools, toolsIgnored = p.Tools.narrowing(user.Tools)
	return kept, append(ignored, toolsIgnored...)
}

// narrowing returns the tool settings of a project that only narrow the
// guards set by user (or the defaults), and the others.
func (s ToolSettings) narrowing(user ToolSettings) (ToolSettings, []Ignored) {
	var kept ToolSettings
	var ignored []Ignored
	skip := func(key string, v any) {
		b, _ := json.Marshal(v)
		ignored = append(ignored, Ignored{Key: "tools." + key, Value: string(b), Reason: ReasonNeedsTrust})
	}
	src, dst := reflect.ValueOf(s), reflect.ValueOf(&kept).Elem()
	for i := range src.NumField() {
		f := src.Type().Field(i)
		key := jsonName(f)
		v := src.Field(i)
		if key == "" || v.IsZero() {
			continue
		}
		narrows := false
		switch key {
		case "execTimeout":
			narrows = s.ExecTimeout <= cmpOr(user.ExecTimeout, defaultExecTimeout)
		case "execMaxTimeout":
			narrows = s.ExecMaxTimeout <= cmpOr(user.ExecMaxTimeout, defaultExecMaxTimeout)
		case "execSandbox":
			narrows = *s.ExecSandbox
		case "webAllow":
			narrows = len(user.WebAllow) > 0 && subset(s.WebAllow, user.WebAllow)
		case "exec":
			narrows = true // only refusals are left (ExecSettings.refusalsOnly)
		}
		if narrows {
			dst.Field(i).Set(v)
			continue
		}
		skip(key, v.Interface())
	}
	return kept, ignored
}

func cmpOr(v, def int) int {
	if v != 0 {
		return v
	}
	return def
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

// resemblesAnswerOnly reports whether c looks like an answer-only
// built-in (by its id or title naming it), so that it gets no more tools
// than that built-in.
func resemblesAnswerOnly(c Command) bool {
	for _, b := range builtinCommands {
		if !b.ReadOnly {
			continue
		}
		id := strings.ToLower(b.ID)
		if strings.Contains(strings.ToLower(c.ID), id) || strings.Contains(strings.ToLower(c.Title), id) {
			return true
		}
	}
	return false
}
