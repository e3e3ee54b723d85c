package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// The one rule for custom commands, applied where settings are parsed
// (ParseSettings), so that every source and every editor gets the same
// answer: the editors pass their settings through unchecked.
//
//   - An id is a letter or digit, then letters, digits, ".", "_" or "-"
//     (it names a command in menus and on the command line).
//   - An id never names a built-in command (fix, explain, ask, run): a
//     command called "fix" that did something else would surprise
//     whoever reads the menu, and a cloned project could use it.
//   - A prompt is required; the title defaults to "Agent: <id>".
//   - An id appears once.
//
// A command breaking the rule is dropped and named (Settings.Invalid);
// the others apply.

var commandID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// isBuiltin reports whether id names a built-in command (in any case, so
// "Fix" is not a look-alike of "fix").
func isBuiltin(id string) bool {
	for _, b := range append(builtinCommands[:len(builtinCommands):len(builtinCommands)], runCommand) {
		if strings.EqualFold(b.ID, id) {
			return true
		}
	}
	return false
}

// parseCommands decodes the customCommands setting, keeping the commands
// that follow the rule and naming the others.
func parseCommands(raw json.RawMessage) ([]Command, []Ignored) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, []Ignored{{Key: "customCommands", Value: firstBytes(raw), Reason: "not a list of commands"}}
	}
	var out []Command
	var bad []Ignored
	seen := map[string]bool{}
	for i, item := range list {
		var c Command
		where := fmt.Sprintf("customCommands[%d]", i)
		if err := json.Unmarshal(item, &c); err != nil {
			bad = append(bad, Ignored{Key: where, Value: firstBytes(item), Reason: "not a command {id, title, prompt}"})
			continue
		}
		c.ID, c.Title = strings.TrimSpace(c.ID), strings.TrimSpace(c.Title)
		if reason := commandProblem(c, seen); reason != "" {
			if c.ID != "" {
				where = "customCommands." + c.ID
			}
			bad = append(bad, Ignored{Key: where, Value: firstBytes(item), Reason: reason})
			continue
		}
		seen[c.ID] = true
		out = append(out, c)
	}
	return out, bad
}

// commandProblem says why c breaks the rule, or "".
func commandProblem(c Command, seen map[string]bool) string {
	switch {
	case !commandID.MatchString(c.ID):
		return `the id must be a letter or digit followed by letters, digits, ".", "_" or "-"`
	case isBuiltin(c.ID):
		return ReasonBuiltin
	case strings.TrimSpace(c.Prompt) == "":
		return "the prompt is missing"
	case seen[c.ID]:
		return "the id is used twice"
	}
	return ""
}

// checkCommands applies the rule to commands built in code (flags, the
// environment, tests): the first problem is an error.
func checkCommands(cmds []Command) error {
	seen := map[string]bool{}
	for _, c := range cmds {
		if reason := commandProblem(c, seen); reason != "" {
			return fmt.Errorf("custom command %q: %s", c.ID, reason)
		}
		seen[c.ID] = true
	}
	return nil
}
