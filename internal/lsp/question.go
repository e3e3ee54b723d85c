package lsp

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// Questions to the user (window/showMessageRequest, the review of a
// workspace/applyEdit) wait for a person, so they have no natural bound.
// But some clients never answer a question the user dismissed: eglot's
// C-g at its prompt leaves the request unanswered, and a run would then
// hold its document for ever. Every question is therefore bounded by the
// questionTimeout setting (15 minutes by default). Past it the request is
// withdrawn with $/cancelRequest (protocol.Call sends it when the
// context ends) and the question counts as no.

// questionTimeout is the bound of one question, from the settings as
// they are now (a changed editor setting applies to the next question).
func (s *Server) questionTimeout() time.Duration {
	return s.currentConfig().QuestionWait()
}

// askUser runs call, a request that waits for the user, under the
// question bound. When the bound passes before the client answers (and
// ctx itself is still live), the request has been withdrawn and askUser
// returns an error wrapping tools.ErrNoAnswer that names what was asked;
// otherwise it returns call's error.
func (s *Server) askUser(ctx context.Context, what string, call func(ctx context.Context) error) error {
	d := s.questionTimeout()
	qctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for _, d := range nudgeTimes {
		nudge := time.AfterFunc(d, func() {
			s.logMessage(ctx, protocol.MessageTypeLog, "cb-ls: waiting for the user's answer to "+what)
		})
		defer nudge.Stop()
	}
	err := call(qctx)
	if err != nil && ctx.Err() == nil && qctx.Err() != nil {
		s.log.Info("question withdrawn: no answer", "question", what, "after", d)
		return fmt.Errorf("%w within %s: %s was withdrawn", tools.ErrNoAnswer, roundWait(d), what)
	}
	return err
}

// nudgeTimes are when a question still unanswered, or a run that has
// ended, is followed by a window/logMessage. Emacs 28's jsonrpc stops
// reading at the reply it waits for and leaves what came in the same
// read (a question or a run's answer sent right after a command's
// answer) unread until the server writes again: the user would see the
// question only when it is withdrawn, and a run's answer never. The log
// lines are those writes; several, because a loaded Emacs may read
// later than the first.
var nudgeTimes = []time.Duration{300 * time.Millisecond, time.Second, 3 * time.Second}

// roundWait prints a bound the way a user set it: whole seconds, or
// minutes when it is a whole number of them.
func roundWait(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", int(d/time.Minute))
	}
	return d.Round(time.Second).String()
}
