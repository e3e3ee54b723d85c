package guard

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ErrCommandRefused is wrapped by every refusal of the command guard.
var ErrCommandRefused = errors.New("command refused")

// CommandGuard refuses command lines that must never run from an agent.
// It parses the line in the dialect of the shell that runs it (bash, or
// POSIX sh, refusing what bash would read differently) so it sees every
// simple command — after
// quoting, lists, pipes, substitutions, `sh -c` strings, eval and
// wrappers such as env, nice or timeout — instead of matching the raw
// string. It is a floor: the sandbox (Landlock) is the boundary.
type CommandGuard struct {
	// Roots are the real absolute workspace folders.
	Roots []string
	// WorkRoot is where relative paths resolve when no cwd is given; in
	// internal mode it lies inside a root's .catbuddy/ and stays usable.
	WorkRoot string
	// Home is the user's home directory ("~" and $HOME).
	Home string
	// URL judges the hosts of URLs and addresses named in commands.
	URL *URLGuard
	// Dialect is the language of the shell the line runs in:
	// DialectBash when exec runs bash; the zero value, DialectPOSIX,
	// where it runs /bin/sh because bash is not installed.
	Dialect Dialect
	// Layered says the command runs over a run's copy-on-write layer
	// of the workspace folders: what it deletes there is a pending
	// deletion the user keeps or discards, never the user's files. A
	// recursive deletion of a workspace folder, or of everything in a
	// directory inside one, is then allowed; one of anything outside
	// the folders (/, the home directory, a folder's parent) is refused
	// as ever.
	Layered bool
}

// maxDepth bounds nested `sh -c` / eval re-parsing.
const maxDepth = 8

// Check parses cmdline and returns an error wrapping ErrCommandRefused
// that names the offending part and the reason, or nil. cwd is the
// directory the command will run in.
func (g *CommandGuard) Check(cmdline, cwd string) error {
	if cwd == "" {
		cwd = g.WorkRoot
	}
	return g.check(cmdline, cwd, 0, g.Dialect)
}

// check judges src, read in dialect d: nested scripts are read in the
// dialect of the shell that runs them (`sh -c` in POSIX sh even when
// the line itself runs in bash).
func (g *CommandGuard) check(src, cwd string, depth int, d Dialect) error {
	if depth > maxDepth {
		return refuse(src, "nests shells or eval too deeply to inspect")
	}
	// A nested script may hold parts only known at run time; a variable
	// keeps it parsable, cannot hide a rule's target, and is refused
	// where it would name the command.
	src = strings.ReplaceAll(src, dynamic, "$CB_DYNAMIC")
	if strings.ContainsRune(src, 0) {
		return refuse(src, "contains a NUL byte")
	}
	f, err := parse(src, d, g.Dialect == DialectBash)
	if err != nil {
		return err
	}
	var found error
	// The walk meets nodes in source order, so a `cd` is seen before the
	// commands after it: `cd .. && rm -rf ws` is judged where it lands.
	// A cd inside a subshell is followed too, which can only make the
	// guard stricter.
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.FuncDecl:
			found = g.checkFunc(n)
		case *syntax.Stmt:
			found = g.checkStmtStdin(n, cwd, depth)
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				found = g.checkPipeline(n, cwd, depth)
			}
		case *syntax.Redirect:
			found = g.checkRedirect(n, cwd)
		case *syntax.CallExpr:
			found = g.checkCall(n, cwd, depth, d)
			if found == nil {
				cwd = g.followCd(n, cwd)
			}
		}
		return found == nil
	})
	return found
}

// refuse builds the error the model sees.
func refuse(what, why string) error {
	return fmt.Errorf("%w: %q %s", ErrCommandRefused, truncateCmd(what), why)
}

func truncateCmd(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// checkFunc refuses a function that calls itself: the fork bomb
// `:(){ :|:& };:` and its renamings.
func (g *CommandGuard) checkFunc(fd *syntax.FuncDecl) error {
	if fd.Name == nil || fd.Body == nil {
		return nil
	}
	name := fd.Name.Value
	recursive := false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && wordText(c.Args[0]) == name {
			recursive = true
		}
		return !recursive
	})
	if recursive {
		return refuse(name+"(){…}", "defines a function that calls itself (fork bomb pattern)")
	}
	return nil
}

// checkPipeline refuses a download piped into an interpreter, and
// judges a script echoed into a shell like `sh -c`.
func (g *CommandGuard) checkPipeline(b *syntax.BinaryCmd, cwd string, depth int) error {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)
	downloaded := ""
	echoed, afterEcho := "", false
	for i, s := range stages {
		args := stmtArgs(s)
		n := ""
		if len(args) > 0 {
			n = commandName(args[0])
		}
		switch {
		case downloaders[n]:
			downloaded = n
		case downloaded != "" && interpreters[n]:
			return refuse(downloaded+" … | "+n, "pipes a download into an interpreter; download to a file and inspect it first")
		case i > 0 && len(args) > 0 && readsProgram(n, args[1:]):
			// Only text written right here (echo 'ls' | sh) can be judged;
			// anything else (a decoder, a file, a command's output) is a
			// script known only at run time.
			if !afterEcho {
				return refuse(strings.Join(args, " "), "runs data piped into it as a program, known only at run time, so it cannot be checked; run the commands directly")
			}
			if err := g.check(echoed, cwd, depth+1, dialectOf(n)); err != nil {
				return err
			}
		case i > 0 && afterEcho && isXargs(s):
			// echo ~ | xargs rm -rf is rm -rf ~.
			if err := g.check(xargsLine(args, echoed), cwd, depth+1, DialectBash); err != nil {
				return err
			}
		}
		afterEcho = n == "echo" || n == "printf"
		if afterEcho {
			echoed = strings.Join(operands(args[1:]), " ")
		}
	}
	return nil
}

// stmtArgs returns the words of the command a statement really runs,
// after wrappers, or nil when it is not a simple command.
func stmtArgs(s *syntax.Stmt) []string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	return unwrap(words(c.Args))
}

// isXargs reports whether a statement runs its command through xargs.
func isXargs(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return false
	}
	for _, w := range words(c.Args) {
		switch commandName(w) {
		case "xargs":
			return true
		case "env", "nice", "nohup", "timeout", "command", "time", "stdbuf":
			continue
		}
		if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return false
		}
	}
	return false
}

// xargsLine is the command xargs would run with the echoed words
// appended, quoted for re-parsing.
func xargsLine(args []string, echoed string) string {
	var b strings.Builder
	for _, a := range append(append([]string(nil), args...), strings.Fields(echoed)...) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = "$CB_DYNAMIC"
		}
		b.WriteString(q)
	}
	return b.String()
}

// checkRedirect refuses writes onto block devices and into .catbuddy/,
// and /dev/tcp connections to internal addresses.
func (g *CommandGuard) checkRedirect(r *syntax.Redirect, cwd string) error {
	if r.Word == nil {
		return nil
	}
	target := wordText(r.Word)
	if strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/") {
		host := strings.Split(strings.TrimPrefix(strings.TrimPrefix(target, "/dev/tcp/"), "/dev/udp/"), "/")[0]
		if err := g.checkHost(host, target); err != nil {
			return err
		}
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
	default:
		return nil
	}
	if isBlockDevice(target) {
		return refuse("> "+target, "writes onto a block device")
	}
	if g.touchesStateDir(target, cwd) {
		return refuse("> "+target, "writes into .catbuddy/, which holds cb-ls's own state")
	}
	return nil
}

// abs resolves a word naming a path against cwd, expanding ~ and $HOME.
func (g *CommandGuard) abs(p, cwd string) string {
	switch {
	case p == "~" || p == "$HOME" || p == "${HOME}":
		p = g.Home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(g.Home, p[2:])
	case strings.HasPrefix(p, "$HOME/"):
		p = filepath.Join(g.Home, p[6:])
	case strings.HasPrefix(p, "${HOME}/"):
		p = filepath.Join(g.Home, p[8:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// inStateDir reports whether abs lies in a root's .catbuddy/ outside
// the work root (which in internal mode is .catbuddy/workspace).
func (g *CommandGuard) inStateDir(abs string) bool {
	for _, r := range g.Roots {
		sd := filepath.Join(r, StateDir)
		if _, ok := within(sd, abs); !ok {
			continue
		}
		if _, wOK := within(sd, g.WorkRoot); wOK && g.WorkRoot != "" {
			if _, ok := within(g.WorkRoot, abs); ok {
				continue
			}
		}
		return true
	}
	return false
}

// touchesStateDir reports whether the path word p names something in
// .catbuddy/: resolved against cwd, or — since a command may cd first —
// through a .catbuddy component anywhere in it, outside the work root.
func (g *CommandGuard) touchesStateDir(p, cwd string) bool {
	abs := g.abs(p, cwd)
	if g.inStateDir(abs) {
		return true
	}
	if !slices.Contains(strings.Split(filepath.ToSlash(p), "/"), StateDir) {
		return false
	}
	if g.WorkRoot != "" && strings.Contains(g.WorkRoot, "/"+StateDir+"/") {
		if _, ok := within(g.WorkRoot, abs); ok {
			return false
		}
	}
	return true
}

// isBlockDevice reports whether p names a disk, partition or volume.
func isBlockDevice(p string) bool {
	p = filepath.Clean(p)
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	name := strings.TrimPrefix(p, "/dev/")
	for _, pre := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk/", "mapper/", "dm-", "loop", "md", "sr", "nbd", "zram", "root"} {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

// checkHost refuses an internal host named in a command, unless the
// URL guard's allow-list opens it.
func (g *CommandGuard) checkHost(host, context string) error {
	if host == "" {
		return nil
	}
	if g.URL != nil && g.URL.allowed(host, "") {
		return nil
	}
	if r, bad := BlockedHost(host); bad {
		return refuse(context, fmt.Sprintf("reaches %s, which is %s", host, r))
	}
	return nil
}
