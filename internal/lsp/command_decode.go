package lsp

import "encoding/json"

// fastExecuteCommand decodes workspace/executeCommand params of the shape
// editors send for a command without arguments, an editor's probe
// included: {"command": "…", "arguments": [], "workDoneToken": …} with
// arguments and workDoneToken optional, each member once, exactly as LSP
// spells it. It reads the params in place instead of through
// encoding/json's reflection, which cost more than the rest of answering
// such a request. Anything else (arguments to decode, an unknown or
// differently cased member, a null, a malformed value) returns ok=false
// and takes the general decoder, which holds the exact semantics; on what
// it accepts, this agrees with it (FuzzFastExecuteCommand).
func fastExecuteCommand(raw []byte) (command string, args []json.RawMessage, ok bool) {
	var haveCommand, haveArgs, haveToken bool
	end, ok := scanObject(raw, skipWS(raw, 0), func(key []byte, j int) (int, bool) {
		switch string(key) {
		case "command":
			s, end, ok := scanString(raw, j)
			if !ok || haveCommand {
				return 0, false
			}
			command, haveCommand = s, true
			return end, true
		case "arguments":
			// Only the empty array: arguments are decoded by the
			// general decoder, which validates them as it copies them.
			if haveArgs || j >= len(raw) || raw[j] != '[' {
				return 0, false
			}
			k := skipWS(raw, j+1)
			if k >= len(raw) || raw[k] != ']' {
				return 0, false
			}
			args, haveArgs = []json.RawMessage{}, true
			return k + 1, true
		case "workDoneToken":
			// ProgressToken: integer or string; ignored here, as the
			// general decoder ignores it.
			if haveToken {
				return 0, false
			}
			haveToken = true
			if j < len(raw) && raw[j] == '"' {
				_, end, ok := scanString(raw, j)
				return end, ok
			}
			_, end, ok := scanInt32(raw, j)
			return end, ok
		}
		return 0, false
	}, func() bool { return haveCommand })
	if !ok || skipWS(raw, end) != len(raw) {
		return "", nil, false
	}
	return command, args, true
}
