package lsp

import (
	"context"
	"encoding/json"
)

// CmdStatus is catbuddy.status: what the server runs now, for a front
// end's status view (docs/PROTOCOL.md).
const CmdStatus = "catbuddy.status"

// statusResult is catbuddy.status's answer.
type statusResult struct {
	Version string `json:"version"`
	// LanguageServers are the language servers cb-ls started and that
	// run now; the editor's own are not among them.
	LanguageServers []languageServerStatus `json:"languageServers"`
}

type languageServerStatus struct {
	Server string `json:"server"`
	PID    int    `json:"pid"`
	// RSS is the resident memory of the server's process tree in
	// bytes, -1 where it cannot be read.
	RSS int64 `json:"rss"`
	// RunView: it checks runs' pending changes, rather than answering
	// the language tools.
	RunView bool `json:"runView"`
	// Text is the status line: "gopls (pid 4242): 182.4 MB resident (run view)".
	Text string `json:"text"`
}

func (s *Server) registerStatusCommand() {
	s.registerCommand(CmdStatus, func(ctx context.Context, args []json.RawMessage) (any, error) {
		res := statusResult{Version: s.version(), LanguageServers: []languageServerStatus{}}
		if a := s.assembly(); a != nil {
			for _, ls := range a.LanguageServers() {
				res.LanguageServers = append(res.LanguageServers, languageServerStatus{
					Server: ls.Server, PID: ls.PID, RSS: ls.RSS, RunView: ls.RunView, Text: ls.String(),
				})
			}
		}
		return res, nil
	})
}
