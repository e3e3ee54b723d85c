package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxToolName is the longest tool name every model API accepts
// (OpenAI and Anthropic both allow ^[a-zA-Z0-9_-]{1,64}$).
const MaxToolName = 64

// Prefix starts the registry name of every MCP tool.
const Prefix = "mcp_"

// sanitize maps a name onto [a-zA-Z0-9_-], replacing anything else with
// '_' so "my server" and "files.read" stay readable.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// shortHash is 8 hex digits identifying the original (server, tool).
func shortHash(server, tool string) string {
	h := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(h[:4])
}

// baseName is mcp_<server>_<tool>, sanitised; when too long it keeps a
// prefix and ends with a hash of the original names, so it stays unique
// and stable.
func baseName(server, tool string) string {
	n := Prefix + sanitize(server) + "_" + sanitize(tool)
	if len(n) <= MaxToolName {
		return n
	}
	return n[:MaxToolName-9] + "_" + shortHash(server, tool)
}

// toolRef names one remote tool.
type toolRef struct{ server, tool string }

// assignNames gives every (server, tool) its registry name. refs must be
// sorted by server then tool: the first of colliding names keeps the
// plain name and the others get a hash suffix, so the result depends
// only on the set of tools, never on timing.
func assignNames(refs []toolRef) map[toolRef]string {
	out := make(map[toolRef]string, len(refs))
	taken := map[string]bool{}
	for _, r := range refs {
		n := baseName(r.server, r.tool)
		if taken[n] {
			suffix := "_" + shortHash(r.server, r.tool)
			if len(n)+len(suffix) > MaxToolName {
				n = n[:MaxToolName-len(suffix)]
			}
			n += suffix
		}
		taken[n] = true
		out[r] = n
	}
	return out
}
