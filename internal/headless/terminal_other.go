//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package headless

import "os"

// isTerminalFile falls back to a character device where there is no
// termios to ask (Windows' console is one).
func isTerminalFile(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
