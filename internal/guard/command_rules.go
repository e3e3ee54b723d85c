package guard

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

var (
	privileged   = set("sudo", "su", "doas", "pkexec", "runuser", "sudoedit")
	powerCmds    = set("shutdown", "reboot", "halt", "poweroff", "kexec")
	formatters   = set("mke2fs", "mkswap", "wipefs", "blkdiscard", "fdisk", "sfdisk", "cfdisk", "parted", "sgdisk")
	downloaders  = set("curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET")
	shells       = set("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash")
	interpreters = set("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash",
		"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "source", ".")
	deviceWriters = set("cp", "mv", "tee", "install", "pv", "truncate", "cat")
	networkCmds   = set("curl", "wget", "nc", "ncat", "netcat", "telnet", "ssh", "scp", "sftp", "rsync",
		"socat", "ping", "ping6", "ftp", "http", "https", "xh", "aria2c", "fetch")
	permCmds = set("chmod", "chown", "chgrp", "setfacl", "chattr")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// checkCall applies the rules to one simple command.
func (g *CommandGuard) checkCall(c *syntax.CallExpr, cwd string, depth int, d Dialect) error {
	all := words(c.Args)
	for _, w := range all {
		for _, u := range urlsIn(w) {
			if err := g.checkHostPort(u.Hostname(), u.Port(), u.String()); err != nil {
				return err
			}
		}
	}
	args := unwrap(all)
	if len(args) == 0 {
		return nil
	}
	if runtimeName(args[0]) {
		return refuse(strings.ReplaceAll(strings.Join(args, " "), dynamic, "$(…)"), "takes its command name from $(…), backticks or a variable, known only at run time, so it cannot be checked; write the command itself")
	}
	name := commandName(args[0])
	rest := args[1:]
	line := strings.Join(args, " ")
	if interpreters[name] && substDownloads(c.Args) {
		return refuse(line, "runs a download through an interpreter; download to a file and inspect it first")
	}
	switch {
	case privileged[name]:
		return refuse(line, "escalates privileges; cb-ls never runs commands as another user")
	case powerCmds[name],
		(name == "init" || name == "telinit") && len(rest) > 0 && (rest[0] == "0" || rest[0] == "6"),
		name == "systemctl" && hasAny(rest, "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"):
		return refuse(line, "shuts down or restarts the machine")
	case strings.HasPrefix(name, "mkfs") || formatters[name]:
		return refuse(line, "formats or partitions a disk")
	case name == "dd":
		for _, a := range rest {
			if v, ok := strings.CutPrefix(a, "of="); ok && isBlockDevice(v) {
				return refuse(line, "writes onto a block device")
			}
		}
	case name == "shred" || deviceWriters[name]:
		for _, a := range rest {
			if isBlockDevice(a) {
				return refuse(line, "writes onto a block device")
			}
		}
	case name == "rm" || name == "rmdir" || name == "unlink":
		if err := g.checkRm(line, rest, cwd); err != nil {
			return err
		}
	case permCmds[name]:
		if recursiveFlag(rest) {
			for _, t := range operands(rest) {
				if g.systemWide(g.abs(t, cwd)) {
					return refuse(line, "changes ownership or permissions recursively on "+t)
				}
			}
		}
	case name == "find":
		if err := g.checkFind(line, rest, cwd); err != nil {
			return err
		}
	case name == "eval":
		if err := g.check(strings.Join(rest, " "), cwd, depth+1, d); err != nil {
			return err
		}
	case shells[name]:
		if script, ok := shellScript(rest); ok {
			if err := g.check(script, cwd, depth+1, dialectOf(name)); err != nil {
				return err
			}
		}
	}
	if networkCmds[name] {
		for _, a := range operands(rest) {
			if h := hostOf(a); h != "" {
				if err := g.checkHost(h, line); err != nil {
					return err
				}
			}
		}
	}
	for _, a := range rest {
		for _, cand := range pathCandidates(a) {
			if g.touchesStateDir(cand, cwd) {
				return refuse(line, "touches .catbuddy/, which holds cb-ls's own state")
			}
		}
	}
	return nil
}

// checkRm refuses recursive deletion of /, ~, *, the workspace root or
// anything above it; over a run's layer (Layered) that of a workspace
// root or of what lies in one is only pending.
func (g *CommandGuard) checkRm(line string, rest []string, cwd string) error {
	if !recursiveFlag(rest) {
		return nil
	}
	for _, t := range operands(rest) {
		if strings.Contains(t, dynamic) {
			continue
		}
		if t == "*" || t == ".*" || t == "./*" {
			if g.inLayer(cwd) {
				continue
			}
			return refuse(line, "deletes everything in the working directory recursively")
		}
		dir, base := t, ""
		if strings.HasSuffix(t, "/*") || strings.HasSuffix(t, "/.*") {
			dir, base = t[:strings.LastIndex(t, "/")], "*"
			if dir == "" {
				dir = "/"
			}
		}
		abs := g.abs(dir, cwd)
		if g.inLayer(abs) {
			continue
		}
		if base == "*" && (g.systemWide(abs) || g.isRootOrAbove(abs)) {
			return refuse(line, "deletes everything in "+abs+" recursively")
		}
		if g.systemWide(abs) {
			return refuse(line, "deletes "+abs+" recursively")
		}
		if g.isRootOrAbove(abs) {
			return refuse(line, "deletes the workspace root "+abs+" recursively")
		}
	}
	return nil
}

// checkFind refuses `find / -delete` and `find ~ -exec rm …`.
func (g *CommandGuard) checkFind(line string, rest []string, cwd string) error {
	deletes := false
	for i, a := range rest {
		if a == "-delete" || (a == "-exec" || a == "-execdir" || a == "-ok") && i+1 < len(rest) && commandName(rest[i+1]) == "rm" {
			deletes = true
		}
	}
	if !deletes {
		return nil
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		if abs := g.abs(a, cwd); g.systemWide(abs) || g.isRootOrAbove(abs) && !g.isRoot(abs) {
			return refuse(line, "deletes files under "+abs)
		}
	}
	return nil
}

// systemWide reports whether abs is /, a top-level directory, the home
// directory or one of its ancestors.
func (g *CommandGuard) systemWide(abs string) bool {
	if abs == "/" || filepath.Dir(abs) == "/" {
		return true
	}
	if g.Home != "" {
		if _, ok := within(abs, g.Home); ok {
			return true
		}
	}
	return false
}

// inLayer reports whether the command runs over a run's layer and abs
// is a workspace root or lies in one (and is not the home directory or
// above it): a deletion there is pending, not done.
func (g *CommandGuard) inLayer(abs string) bool {
	if !g.Layered || abs == "" || g.systemWide(abs) {
		return false
	}
	for _, r := range g.Roots {
		if _, ok := within(r, abs); ok {
			return true
		}
	}
	return false
}

// isRootOrAbove reports whether abs is a workspace root or an ancestor.
func (g *CommandGuard) isRootOrAbove(abs string) bool {
	for _, r := range g.Roots {
		if _, ok := within(abs, r); ok {
			return true
		}
	}
	return false
}

func (g *CommandGuard) isRoot(abs string) bool {
	for _, r := range g.Roots {
		if r == abs {
			return true
		}
	}
	return false
}

// checkHostPort is checkHost with the port known (for allow-list entries
// written as host:port).
func (g *CommandGuard) checkHostPort(host, port, context string) error {
	if g.URL != nil && port != "" && g.URL.allowed(host, port) {
		return nil
	}
	return g.checkHost(host, context)
}

// recursiveFlag reports whether args hold -r, -R (alone or combined)
// or --recursive before "--".
func recursiveFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--recursive" {
			return true
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR") {
			return true
		}
	}
	return false
}

// operands returns the non-option arguments ("--" ends options).
func operands(args []string) []string {
	var out []string
	opts := true
	for _, a := range args {
		if opts && a == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// shellScript finds the script of `sh -c script`, including combined
// flags such as -lc, -ec or -xc.
func shellScript(args []string) (string, bool) {
	hasC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if hasC && i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if strings.Contains(a[1:], "c") {
				hasC = true
			}
		default:
			return a, hasC
		}
	}
	return "", false
}

// substDownloads reports whether a word runs a downloader inside $( ),
// backticks or <( ) — `bash -c "$(curl …)"`, `source <(wget -O- …)`.
func substDownloads(ws []*syntax.Word) bool {
	found := false
	for _, w := range ws {
		syntax.Walk(w, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok {
				if a := unwrap(words(c.Args)); len(a) > 0 && downloaders[commandName(a[0])] {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// hostOf extracts the host from an argument of a network command:
// user@host, host:port, host:path, [v6]:port, or a bare address. Words
// that are plainly not hosts (short numbers, option values) give "".
func hostOf(a string) string {
	if strings.Contains(a, dynamic) || strings.Contains(a, "://") || strings.HasPrefix(a, "/") || strings.HasPrefix(a, ".") {
		return ""
	}
	if i := strings.LastIndex(a, "@"); i >= 0 {
		a = a[i+1:]
	}
	if _, ok := HostAddr(a); ok && (strings.ContainsAny(a, ".:") || len(a) >= 8) {
		return a
	}
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	if i := strings.IndexByte(a, ':'); i > 0 {
		a = a[:i]
	}
	if _, ok := internalNames[NormalizeHost(a)]; ok || strings.HasSuffix(NormalizeHost(a), ".localhost") {
		return a
	}
	if ip, ok := HostAddr(a); ok && ip.Is4() && strings.Contains(a, ".") {
		return a
	}
	return ""
}

// pathCandidates returns the paths an argument may name: itself and
// the value of key=value / --opt=value forms.
func pathCandidates(a string) []string {
	if a == "" || strings.Contains(a, dynamic) {
		return nil
	}
	out := []string{a}
	if i := strings.IndexByte(a, '='); i >= 0 && i+1 < len(a) {
		out = append(out, a[i+1:])
	}
	return out
}

func hasAny(args []string, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a == n {
				return true
			}
		}
	}
	return false
}

// checkStmtStdin judges what a statement feeds a program reader on
// stdin: a here-doc or here-string is judged like `sh -c` (and may not
// hold parts known only at run time); a file redirected into one is
// refused, since its content is only known when it runs.
func (g *CommandGuard) checkStmtStdin(s *syntax.Stmt, cwd string, depth int) error {
	args := stmtArgs(s)
	if len(args) == 0 {
		return nil
	}
	name := commandName(args[0])
	if isXargs(s) {
		// xargs rm -rf <<< ~ is rm -rf ~.
		for _, r := range s.Redirs {
			if body := stdinText(r); body != nil {
				if err := g.check(xargsLine(args, wordText(body)), cwd, depth+1, DialectBash); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if !readsProgram(name, args[1:]) {
		return nil
	}
	for _, r := range s.Redirs {
		var body *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		case syntax.WordHdoc:
			body = r.Word
		case syntax.RdrIn, syntax.RdrInOut:
			if r.N == nil || r.N.Value == "0" {
				return refuse(name+" < "+wordText(r.Word), "runs a file redirected into it as a program, known only at run time, so it cannot be checked; run the commands directly")
			}
		}
		if body == nil {
			continue
		}
		text := wordText(body)
		if strings.Contains(text, dynamic) {
			return refuse(name+" <<…", "runs a script built at run time ($(…), backticks), so it cannot be checked")
		}
		if !shells[name] {
			continue
		}
		if err := g.check(text, cwd, depth+1, dialectOf(name)); err != nil {
			return fmt.Errorf("here-document for %s: %w", name, err)
		}
	}
	return nil
}

// stdinText is the text a here-document or here-string feeds a
// command, or nil for any other redirection.
func stdinText(r *syntax.Redirect) *syntax.Word {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return r.Hdoc
	case syntax.WordHdoc:
		return r.Word
	}
	return nil
}
