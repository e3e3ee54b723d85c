package lsp

import (
	"strconv"
	"strings"
)

// cb-ls promises that nothing lands unreviewed: every edit is a
// workspace/applyEdit whose hunks carry change annotations with
// needsConfirmation, and the editor asks. Not every client keeps that
// promise. eglot declares no changeAnnotationSupport and ignores
// needsConfirmation, and since eglot 1.16 (Emacs 30's built-in eglot is
// 1.17.30) its default eglot-confirm-server-edits, maybe-summary,
// applies an edit to files that are all open in buffers without asking.
// Older eglot (Debian bookworm's 1.9) asks with y-or-n-p. The user is
// told once per connection, in the first run's answer, what to set.

// consentNotice is the sentence added to the first run's answer for a
// client that applies edits without asking.
const consentNotice = "Note: this eglot applies the agent's edits to open buffers without asking. " +
	"To review each edit, set (setq eglot-confirm-server-edits t) in your init file (cb-ls README, Emacs eglot)."

// eglotAsksFrom is the first eglot release whose default applies server
// edits to visited buffers without asking (eglot-confirm-server-edits,
// maybe-summary). Releases before it asked (eglot-confirm-server-initiated-edits).
var eglotAsksFrom = [2]int{1, 16}

// appliesEditsUnasked reports whether the client applies a server's edits
// without asking the user, going by clientInfo and the capabilities: an
// eglot that names a version from 1.16 on and does not declare change
// annotations (a client that declares them is taken to honour
// needsConfirmation). eglot sends a version only from 1.16 on; 1.15
// sends its name alone and asks.
func (s *Server) appliesEditsUnasked() bool {
	s.mu.Lock()
	info := s.info
	s.mu.Unlock()
	if !strings.EqualFold(info.Name, "Eglot") || s.supportsAnnotations() {
		return false
	}
	v, ok := info.Version.Get()
	if !ok {
		return false
	}
	major, minor, ok := majorMinor(v)
	return ok && (major > eglotAsksFrom[0] || major == eglotAsksFrom[0] && minor >= eglotAsksFrom[1])
}

// withConsentNotice returns answer with consentNotice after it, the
// first time it is called on a connection whose client applies edits
// unasked; answer unchanged otherwise.
func (s *Server) withConsentNotice(answer string) string {
	if !s.appliesEditsUnasked() || s.consentTold.Swap(true) {
		return answer
	}
	return answer + "\n\n" + consentNotice
}

// majorMinor parses the first two numbers of a version ("1.17.30").
func majorMinor(v string) (int, int, bool) {
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(v), "v"), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor, err1 == nil && err2 == nil
}
