package shell

import (
	"os"
	"path/filepath"
)

// Interpreter is the shell a command line runs in. Models write bash
// (here-strings, [[ ]], brace expansion, $'…'), so lines run in bash
// wherever it is installed; only where it is not do they run in
// /bin/sh, a POSIX sh (dash on Debian and Ubuntu). The command guard
// must read the line in the same language (guard.Dialect), so the
// caller tells it which of the two this is.
type Interpreter struct {
	// Path is the shell's absolute path.
	Path string
	// Bash says Path is bash; else it is /bin/sh, read as POSIX sh.
	Bash bool
}

// posixShell is the shell where bash is not installed.
const posixShell = "/bin/sh"

// FindInterpreter returns bash as found on path (a PATH value: the
// first absolute entry holding an executable bash), else /bin/sh.
// Relative entries are ignored: a line must not run a bash that the
// working directory supplies.
func FindInterpreter(path string) Interpreter {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, "bash")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return Interpreter{Path: p, Bash: true}
		}
	}
	return Interpreter{Path: posixShell}
}

// Argv is the command that runs line.
func (i Interpreter) Argv(line string) []string {
	return []string{i.Path, "-c", line}
}

// String names the shell for messages: "bash" or "/bin/sh (POSIX sh)".
func (i Interpreter) String() string {
	if i.Bash {
		return "bash"
	}
	return posixShell + " (POSIX sh)"
}
