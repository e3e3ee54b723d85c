package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
)

// Prompt implements sdk.Agent: one turn of the session's run. The first
// prompt starts the run (a slash command picks fix, explain or a custom
// command; the first attached file is its document); later prompts are
// replies to the same conversation.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	turnCtx, end, err := s.beginTurn(ctx)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer end()
	s.announceOnFirstTurn(turnCtx)
	s.askTrust(turnCtx)
	cfg, err := s.run.config(turnCtx)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	in, err := s.parsePrompt(turnCtx, p.Prompt, cfg)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	out, runErr := s.run.turn(turnCtx, in, cfg)
	switch {
	case turnCtx.Err() != nil:
		// A turn cancelled before any model call ended knows nothing of
		// its cost: no usage rather than a false zero.
		var use *sdk.Usage
		if out.Usage != (agent.Usage{}) {
			use = usageOf(out.Usage)
		}
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled, Usage: use}, nil
	case errors.Is(runErr, agent.ErrStepLimit):
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests, Usage: usageOf(out.Usage)}, nil
	case errors.Is(runErr, agent.ErrRefused):
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal, Usage: usageOf(out.Usage)}, nil
	case errors.Is(runErr, agent.ErrAuth):
		return sdk.PromptResponse{}, sdk.NewAuthRequired(errorData(runErr))
	case runErr != nil:
		return sdk.PromptResponse{}, sdk.NewInternalError(errorData(runErr))
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn, Usage: usageOf(out.Usage)}, nil
}

func usageOf(u agent.Usage) *sdk.Usage {
	in, out := int(u.InputTokens), int(u.OutputTokens)
	use := &sdk.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	if u.CachedInputTokens > 0 {
		use.CachedReadTokens = sdk.Ptr(int(u.CachedInputTokens))
	}
	if u.CacheWriteTokens > 0 {
		use.CachedWriteTokens = sdk.Ptr(int(u.CacheWriteTokens))
	}
	return use
}

// turnInput is a prompt as cb-ls understands it.
type turnInput struct {
	command string     // "" for none: ask on the first turn, a reply later
	task    agent.Task // the document and the user's text
	text    string     // for a reply: the user's text and attached files
}

// sharedFilePrefix is how CodeCompanion attaches a file (#{buffer},
// /file): a text block naming its path, not a resource link
// (adapters/acp/helpers.lua, form_messages). Such a block is taken as
// the link it stands for, so that the file is the run's document and
// the request's first line is the user's.
const sharedFilePrefix = "Sharing the following file as context: "

// parsePrompt reads the prompt's blocks: text (a block starting with a
// /command picks the command), resource links (files the user points
// at) and embedded resources (their text as the user sees it). Text
// blocks are separate paragraphs: clients send an attachment's note and
// the user's request as two blocks. Images and audio are not offered in
// initialize and are refused.
func (s *acpSession) parsePrompt(ctx context.Context, blocks []sdk.ContentBlock, cfg config.Config) (turnInput, error) {
	var in turnInput
	var texts []string
	var attached strings.Builder
	link := func(path string) {
		if in.task.Path == "" {
			in.task.Path = path
		} else {
			fmt.Fprintf(&attached, "\n\nAttached file: %s", s.rel(path))
		}
	}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			t := strings.TrimSpace(b.Text.Text)
			if p, ok := strings.CutPrefix(t, sharedFilePrefix); ok && filepath.IsAbs(p) && !strings.ContainsRune(p, '\n') {
				link(filepath.Clean(p))
				continue
			}
			if t == "" {
				continue
			}
			if name, rest, ok := slashCommand(t); ok && in.command == "" {
				if _, known := config.FindCommand(cfg, name); known {
					// The command's block leads: its text is the request.
					in.command = name
					texts = append([]string{rest}, texts...)
					continue
				}
			}
			texts = append(texts, t)
		case b.ResourceLink != nil:
			path, err := s.filePath(b.ResourceLink.Uri)
			if err != nil {
				return in, sdk.NewInvalidParams(errorData(err))
			}
			link(path)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			path, err := s.filePath(r.Uri)
			if err != nil {
				fmt.Fprintf(&attached, "\n\nAttached %s:\n```\n%s\n```", r.Uri, r.Text)
				continue
			}
			s.ws.markSeen(path)
			if in.task.Path == "" {
				in.task.Path, in.task.Content = path, []byte(r.Text)
			} else {
				fmt.Fprintf(&attached, "\n\nAttached file %s, as the user sees it:\n```\n%s\n```", s.rel(path), r.Text)
			}
		default:
			return in, sdk.NewInvalidParams(map[string]string{"error": "cb-ls takes text, resource links and text resources in a prompt; images, audio and binary resources are not supported"})
		}
	}
	input := strings.TrimSpace(strings.Join(texts, "\n\n"))
	in.task.Input = input + attached.String()
	in.task.Command = in.command
	if in.task.Path != "" {
		if in.task.Content == nil {
			if err := s.readTarget(ctx, &in.task); err != nil {
				return in, sdk.NewInvalidParams(errorData(err))
			}
		}
	}
	in.text = in.task.Input
	if in.task.Path != "" {
		in.text += fmt.Sprintf("\n\n(The file in question: %s)", s.rel(in.task.Path))
	}
	return in, nil
}

// slashCommand splits "/fix the test" into "fix" and "the test".
func slashCommand(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, "/") {
		return "", s, false
	}
	name, rest, _ = strings.Cut(s[1:], " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, rest = name[:i], name[i:]+" "+rest
	}
	return name, strings.TrimSpace(rest), name != ""
}

// filePath turns a file:// URI (or an absolute path) into a path.
func (s *acpSession) filePath(raw string) (string, error) {
	if filepath.IsAbs(raw) {
		return filepath.Clean(raw), nil
	}
	return fileuri.ToPath(uri.URI(raw))
}

// readTarget reads the run's document through the workspace (the
// client's buffer when it has one), within the guard.
func (s *acpSession) readTarget(ctx context.Context, t *agent.Task) error {
	p, err := s.run.resolve(t.Path)
	if err != nil {
		return err
	}
	doc, err := s.ws.Read(ctx, p)
	if err != nil {
		return fmt.Errorf("read %s: %w", p.Rel, err)
	}
	// A document the client did not serve is the disk's: the prompt
	// must not call it the user's view with unsaved changes.
	t.Path, t.Content, t.FromDisk = p.Abs, doc.Content, !doc.Open
	return nil
}

// rel names path for the model and the user: relative to the root when
// inside it.
func (s *acpSession) rel(path string) string {
	if r, err := filepath.Rel(s.root, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}
