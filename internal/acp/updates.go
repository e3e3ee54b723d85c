package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// maxShownOutput bounds a tool's output shown in the client; the model
// gets it whole.
const maxShownOutput = 8 << 10

// toolKind is the ACP kind of a cb-ls tool, so the client can show and
// follow it.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "read_file", "list_dir", "diagnostics", "lsp":
		return sdk.ToolKindRead
	case "edit_file", "write_file", "multi_edit", "apply_patch", "rename_symbol", "replace_symbol", "code_action":
		return sdk.ToolKindEdit
	case "grep", "glob":
		return sdk.ToolKindSearch
	case "exec":
		return sdk.ToolKindExecute
	case "web_fetch":
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindOther
}

// callArgs are the arguments of the built-in tools that say where a
// call works and what it does.
type callArgs struct {
	Path    string `json:"path"`
	Offset  int    `json:"offset"`
	Pattern string `json:"pattern"`
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	URL     string `json:"url"`
	Patch   string `json:"patch"`
}

// describeCall returns a call's title and the places it touches
// (absolute paths; lines are 1-based).
func describeCall(name string, raw json.RawMessage, root string) (string, []sdk.ToolCallLocation) {
	var a callArgs
	_ = json.Unmarshal(raw, &a) // a malformed call is still shown, by name
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	var locs []sdk.ToolCallLocation
	if a.Path != "" {
		loc := sdk.ToolCallLocation{Path: abs(a.Path)}
		if a.Offset > 0 {
			loc.Line = sdk.Ptr(a.Offset)
		}
		locs = append(locs, loc)
	}
	for _, f := range patchFiles(a.Patch) {
		locs = append(locs, sdk.ToolCallLocation{Path: abs(f)})
	}
	switch name {
	case "read_file":
		return "Read " + a.Path, locs
	case "list_dir":
		return "List " + orDot(a.Path), locs
	case "edit_file", "multi_edit":
		return "Edit " + a.Path, locs
	case "write_file":
		return "Write " + a.Path, locs
	case "apply_patch":
		return "Patch " + strings.Join(patchFiles(a.Patch), ", "), locs
	case "grep":
		return fmt.Sprintf("Search for %q in %s", a.Pattern, orDot(a.Path)), locs
	case "glob":
		return fmt.Sprintf("Find files matching %q", a.Pattern), locs
	case "exec":
		if a.Cwd != "" {
			locs = append(locs, sdk.ToolCallLocation{Path: abs(a.Cwd)})
		}
		return "Run " + a.Command, locs
	case "web_fetch":
		return "Fetch " + a.URL, locs
	}
	return name, locs
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// patchFiles lists the files a unified diff (apply_patch) names: the
// "+++" side, or the "---" side of a deleted file.
func patchFiles(patch string) []string {
	var out []string
	old := ""
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "):
			old = strings.TrimPrefix(strings.TrimSpace(l[4:]), "a/")
		case strings.HasPrefix(l, "+++ "):
			name := strings.TrimPrefix(strings.TrimSpace(l[4:]), "b/")
			if name == "/dev/null" {
				name = old
			}
			if name != "" && name != "/dev/null" {
				out = append(out, name)
			}
		}
	}
	return out
}

// reporter turns one turn's agent events into session/update
// notifications, in order.
type reporter struct {
	s       *acpSession
	ctx     context.Context
	window  int // the model's context window, for usage_update
	lastUse agent.Usage
	// plans are the arguments of the update_plan calls not yet answered:
	// the plan is shown once the tool accepted it.
	plans map[string]json.RawMessage
}

// event is the agent's emit function for a turn.
func (r *reporter) event(ev agent.Event) {
	s := r.s
	switch ev.Kind {
	case agent.EventText:
		if ev.Text != "" {
			s.update(r.ctx, sdk.UpdateAgentMessageText(ev.Text))
		}
	case agent.EventCompact:
		s.update(r.ctx, sdk.UpdateAgentThoughtText(ev.Text))
	case agent.EventToolCall:
		if ev.Tool == tools.PlanToolName {
			if r.plans == nil {
				r.plans = map[string]json.RawMessage{}
			}
			r.plans[ev.CallID] = ev.Args
			return
		}
		if t, ok := s.run.registry().Get(ev.Tool); ok && !t.ReadOnly {
			s.setCall(ev.CallID)
		}
		title, locs := describeCall(ev.Tool, ev.Args, s.root)
		s.update(r.ctx, sdk.StartToolCall(sdk.ToolCallId(ev.CallID), title,
			sdk.WithStartKind(toolKind(ev.Tool)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
			sdk.WithStartLocations(locs), sdk.WithStartRawInput(json.RawMessage(orEmptyObject(ev.Args)))))
	case agent.EventToolResult:
		if args, ok := r.plans[ev.CallID]; ok {
			delete(r.plans, ev.CallID)
			if u, ok := planUpdate(args); ok && !ev.IsError {
				s.update(r.ctx, u)
			}
			return
		}
		s.endCall(ev.CallID)
		status := sdk.ToolCallStatusCompleted
		if ev.IsError {
			status = sdk.ToolCallStatusFailed
		}
		content := s.takeDiffs(ev.CallID)
		if ev.IsError || len(content) == 0 {
			content = append(content, sdk.ToolContent(sdk.TextBlock(truncate(ev.Output, maxShownOutput))))
		}
		s.update(r.ctx, sdk.UpdateToolCall(sdk.ToolCallId(ev.CallID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)))
	case agent.EventUsage:
		if ev.Usage == nil {
			return
		}
		r.lastUse = *ev.Usage
		used := int(ev.Usage.InputTokens + ev.Usage.OutputTokens)
		s.update(r.ctx, sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{Size: r.window, Used: used}})
	}
}

func orEmptyObject(raw json.RawMessage) []byte {
	if !json.Valid(raw) {
		return []byte("{}")
	}
	return raw
}
