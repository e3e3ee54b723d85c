package lspfeatures

import (
	"errors"
	"fmt"
)

// RequestError is a language server's error answer to a request. Conns
// return it (wrapped or not) so that an answer like "cannot rename a
// built-in" reaches the model as what the server said.
type RequestError struct {
	Method  string
	Code    int64
	Message string
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("the language server answered %s with an error: %s", e.Method, e.Message)
}

func errorAs(err error, target **RequestError) bool { return errors.As(err, target) }
