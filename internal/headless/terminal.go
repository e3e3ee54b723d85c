package headless

import "os"

// IsTerminal reports whether v (stdin, stdout or stderr) is a terminal
// a person sits at. A character device is not enough: /dev/null is one,
// and a CI job's stdin is often /dev/null, where a question would be
// printed that nobody answers. The terminal's own settings (termios)
// are asked for, as golang.org/x/term does.
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return false
	}
	return isTerminalFile(f)
}
