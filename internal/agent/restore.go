package agent

import (
	"encoding/json"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// fileTools are the tools whose successful call means the model has seen
// (read, or written itself) the file its "path" argument names.
var fileTools = map[string]bool{"read_file": true, "edit_file": true, "multi_edit": true, "write_file": true}

// restoreReads tells states which files the conversation in history read
// or wrote, so that a reply to a stored run (cb-ls run --continue, a
// reply after the editor restarted) does not warn about editing files
// the model read in an earlier turn, nor refuse to overwrite them.
func restoreReads(states *filestate.FileStates, history []Message, workRoot string) {
	failed := map[string]bool{}
	for _, m := range history {
		for _, r := range m.ToolResults {
			if r.IsError {
				failed[r.CallID] = true
			}
		}
	}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			if !fileTools[c.Name] || failed[c.ID] {
				continue
			}
			var a struct {
				Path string `json:"path"`
			}
			if json.Unmarshal(c.Args, &a) != nil || a.Path == "" {
				continue
			}
			p := a.Path
			if !filepath.IsAbs(p) {
				if workRoot == "" {
					continue
				}
				p = filepath.Join(workRoot, p)
			}
			states.RecordRestored(filepath.Clean(p))
		}
	}
}
