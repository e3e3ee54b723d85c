package fake

import "go.lsp.dev/protocol"

// MessageHandler picks the answer to one window/showMessageRequest: the
// chosen action's title, or "" to dismiss it (the editor answers null).
type MessageHandler func(p *protocol.ShowMessageRequestParams) string

// SetMessageRequest replaces Options.Answer for the following questions
// with h, which answers by an action's title.
func (e *Editor) SetMessageRequest(h MessageHandler) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answer = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		title := h(p)
		if title == "" {
			return nil
		}
		for _, a := range p.Actions {
			if a.Title == title {
				return &a
			}
		}
		e.t.Errorf("fake editor: the question offers no action %q: %+v", title, p.Actions)
		return nil
	}
}

// Choose answers every question with the action titled title.
func Choose(title string) MessageHandler {
	return func(*protocol.ShowMessageRequestParams) string { return title }
}
