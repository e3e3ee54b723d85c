package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// Trust commands (docs/PROTOCOL.md).
const (
	CmdTrustProject   = "catbuddy.trustProject"
	CmdUntrustProject = "catbuddy.untrustProject"
	CmdTrustStatus    = "catbuddy.trustStatus"
)

// The answers of the trust question.
const (
	answerTrust  = "Trust"
	answerNotNow = "Not now"
)

// projectTrust is what a project asks to be trusted for (app.ProjectTrust:
// every front end asks the same question).
type projectTrust = app.ProjectTrust

// store is the user's trust store.
func (s *Server) store() config.TrustStore { return config.DefaultTrustStore() }

// projectTrusted is the MCP manager's check.
func (s *Server) projectTrusted(root string) bool {
	ok, err := s.store().TrustedRoot(root)
	if err != nil {
		s.log.Warn("project trust", "error", err)
	}
	return ok
}

// describeTrust lists what root's .catbuddy files ask for.
func (s *Server) describeTrust(root string) projectTrust {
	return app.DescribeTrust(root, s.AgentConfig(), s.projectTrusted, s.log)
}

// checkTrust reports each root's ignored settings in the log and asks
// about each untrusted project once per connection and configuration.
// It runs off the read loop: it waits for the user.
func (s *Server) checkTrust(ctx context.Context) {
	for _, root := range s.Guard().Roots() {
		p := s.describeTrust(root)
		for _, l := range p.Ignored {
			s.log.Warn("ignored project setting", "root", root, "setting", l)
		}
		if p.Trusted || !p.NeedsQuestion() {
			continue
		}
		s.log.Warn("project settings ignored until the project is trusted (Agent: Trust This Project… / :CatbuddyTrust)",
			"root", root, "servers", strings.Join(p.Servers, "; "), "settings", strings.Join(p.Settings, "; "))
		id, err := config.IdentifyProject(root)
		if err != nil {
			continue
		}
		s.mu.Lock()
		asked := s.askedTrust[id]
		if s.askedTrust == nil {
			s.askedTrust = map[config.ProjectState]bool{}
		}
		s.askedTrust[id] = true
		s.mu.Unlock()
		if !asked {
			s.askTrust(ctx, id, p)
		}
	}
}

// askTrust asks the question for the project in state id and acts on the
// answer. A dismissed question or an error is "Not now".
func (s *Server) askTrust(ctx context.Context, id config.ProjectState, p projectTrust) bool {
	var answer *protocol.MessageActionItem
	err := s.askUser(ctx, "the trust question", func(ctx context.Context) (err error) {
		answer, err = s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeWarning,
			Message: p.Message(),
			Actions: []protocol.MessageActionItem{{Title: answerTrust}, {Title: answerNotNow}},
		})
		return err
	})
	if err != nil || answer == nil || answer.Title != answerTrust {
		s.log.Info("project not trusted", "root", p.Root, "error", err)
		return false
	}
	if err := s.store().Trust(id); err != nil {
		s.log.Error("cannot keep the trust decision", "root", p.Root, "error", err)
		s.showError(ctx, fmt.Sprintf("cb-ls: could not trust %s: %v", p.Root, err))
		return false
	}
	s.log.Info("project trusted", "root", p.Root, "hash", id.Hash)
	s.trustChanged()
	return true
}

// trustChanged applies a new decision without a restart: the MCP
// servers and the guard's mode follow it now; the agent's and the
// tools' settings are read at each run (lsp/run_settings.go).
func (s *Server) trustChanged() {
	s.syncMode()
	if m := s.mcpManager(); m != nil {
		m.SetRoots(s.Guard().Roots())
	}
}

func (s *Server) showError(ctx context.Context, msg string) {
	_ = s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: msg})
}

// trustArgs is the optional argument of the trust commands.
type trustArgs struct {
	// Root (or URI, a file or folder inside it) picks the project;
	// default: the first workspace folder.
	Root string `json:"root"`
	URI  string `json:"uri"`
}

func (s *Server) trustRoot(args []json.RawMessage) (string, error) {
	var a trustArgs
	if len(args) > 0 && len(args[0]) > 0 && string(args[0]) != "null" {
		if err := json.Unmarshal(args[0], &a); err != nil {
			return "", invalidParams("want {root?} or {uri?}: %v", err)
		}
	}
	roots := s.Guard().Roots()
	switch {
	case a.Root != "":
		real, err := filepath.EvalSymlinks(a.Root)
		if err != nil {
			return "", invalidParams("root %s: %v", a.Root, err)
		}
		return real, nil
	case a.URI != "":
		path, err := fileuri.ToPath(uri.URI(a.URI))
		if err != nil {
			return "", invalidParams("uri %s: %v", a.URI, err)
		}
		return s.rootFor(path), nil
	case len(roots) > 0:
		return roots[0], nil
	}
	return "", invalidParams("no workspace folder to trust")
}

func (s *Server) registerTrustCommands() {
	// catbuddy.trustProject asks (naming what the project wants) and
	// trusts on "Trust"; a project asking for nothing is trusted as is.
	s.registerCommand(CmdTrustProject, func(ctx context.Context, args []json.RawMessage) (any, error) {
		root, err := s.trustRoot(args)
		if err != nil {
			return nil, err
		}
		id, err := config.IdentifyProject(root)
		if err != nil {
			return nil, err
		}
		p := s.describeTrust(root)
		if !id.HasConfig {
			return p, nil // nothing to trust
		}
		if p.NeedsQuestion() && !p.Trusted {
			p.Trusted = s.askTrust(ctx, id, p)
			return p, nil
		}
		if err := s.store().Trust(id); err != nil {
			return nil, err
		}
		p.Trusted = true
		s.trustChanged()
		return p, nil
	})
	s.registerCommand(CmdUntrustProject, func(ctx context.Context, args []json.RawMessage) (any, error) {
		root, err := s.trustRoot(args)
		if err != nil {
			return nil, err
		}
		if err := s.store().Untrust(root); err != nil {
			return nil, err
		}
		s.log.Info("project no longer trusted", "root", root)
		s.trustChanged()
		return s.describeTrust(root), nil
	})
	s.registerCommand(CmdTrustStatus, func(ctx context.Context, args []json.RawMessage) (any, error) {
		out := []projectTrust{}
		for _, r := range s.Guard().Roots() {
			out = append(out, s.describeTrust(r))
		}
		return out, nil
	})
}
