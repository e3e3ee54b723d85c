package tools

import "errors"

// ErrNoAnswer is wrapped when a question to the user (an exec approval,
// an edit's review) got no answer within its bound and was withdrawn.
// It counts as no; the model is told that nobody answered, so that it
// does not take the silence for a decision about its proposal.
var ErrNoAnswer = errors.New("no answer from the user")
