package agent

import (
	"fmt"
	"strings"
)

// The results of the last tool calls are the ones the model has not seen
// yet. When even they do not fit the window (a 170 KB file read with a
// 32k-token model), trimming them to a few hundred bytes would leave the
// model nothing to work with. Instead each keeps as much of its start as
// the window holds, and a note says how big it was and how to get the
// rest in parts.

// minUsefulKeep is the smallest part of a result worth keeping: below
// it, only the note is sent.
const minUsefulKeep = 1 << 10

// cutNote ends a result cut to fit: its size, what was kept, and how
// to read it in parts.
const cutNote = "\n[… cut to fit the model's context window (%d tokens): this result is %d bytes (about %d tokens)%s. %s]"

// fitLatest cuts the outputs of the last message's tool results so that
// the request fits compactTo of the window, and returns how many it cut.
func (l *loop) fitLatest(req *ModelRequest) int {
	last := len(req.Messages) - 1
	if last < 1 || len(req.Messages[last].ToolResults) == 0 {
		return 0
	}
	b := l.budget
	m := &req.Messages[last]
	outs := 0
	for _, r := range m.ToolResults {
		outs += wireLen(r.Output)
	}
	room := int(compactTo*float64(b.window)*b.perToken) - (b.bytes(req) - outs)
	if room >= outs {
		return 0
	}
	room = max(room, 0)
	results := append([]ToolResult(nil), m.ToolResults...) // never write through to a caller's slice
	n := 0
	for i, r := range results {
		size := wireLen(r.Output)
		share := int(float64(room) * float64(size) / float64(outs)) // shares in proportion to size
		if size <= share {
			continue
		}
		results[i].Output = cutResult(r, share, b.window, b.perToken)
		n++
	}
	m.ToolResults = results
	b.reset(last)
	return n
}

// cutResult keeps about keep wire bytes of r's output, whole lines, and
// appends the note.
func cutResult(r ToolResult, keep, window int, perToken float64) string {
	s := r.Output
	kept := ""
	if keep >= minUsefulKeep {
		// wireLen counts escapes; scale the share to the text's own bytes.
		n := int(float64(keep) * float64(len(s)) / float64(max(1, wireLen(s))))
		kept = strings.TrimSuffix(truncateText(s, n), "…")
		if i := strings.LastIndexByte(kept, '\n'); i > 0 {
			kept = kept[:i+1]
		}
	}
	what := ""
	switch {
	case kept == "":
		what = "; none of it fits"
	default:
		what = fmt.Sprintf("; only its first %d bytes are above", len(kept))
	}
	return strings.TrimRight(kept, "\n") + fmt.Sprintf(cutNote, window, len(s), int(float64(len(s))/perToken), what, inParts(r.Name))
}

// inParts says how to get a tool's result in parts.
func inParts(tool string) string {
	switch tool {
	case "read_file":
		return "Read it in parts: read_file with offset and limit, or grep for what you need"
	case "grep":
		return "Narrow the search: a path or glob, a more specific pattern, or fewer context lines"
	case "glob", "list_dir":
		return "Narrow it: a more specific pattern or a subdirectory"
	case "exec":
		return "Run the command again with less output (| head -n 100, | tail -n 100, or a filter)"
	case "web_fetch":
		return "Fetch a more specific page"
	}
	return "Ask for less at a time"
}
