// Package sandbox confines the commands the exec tool runs, on Linux,
// with Landlock, private namespaces and a seccomp filter. It decides
// nothing: the approval flow in package tools chooses a Policy (may the
// command write the workspace, .git, reach the network) and this package
// enforces it. Elsewhere Probe says "off" and Prepare fails, and the
// caller treats commands as unconfined.
//
// # The helper
//
// A command is never confined in the server's own process. Prepare
// builds a spec (the Landlock grants, the mounts to make, the command)
// and returns an *exec.Cmd that starts this same binary again
// (/proc/self/exe) with the spec in the environment variable
// CB_LS_SANDBOX_SPEC. In that child, Main finds the variable, removes
// it, locks its thread, confines itself and execve's the command, so the
// command inherits the confinement and nothing of cb-ls runs after it.
// Every binary that runs confined commands must therefore call Main
// first thing: cmd/cb-ls in main, and every test binary whose tests run
// commands through exec in TestMain:
//
//	func TestMain(m *testing.M) {
//		sandbox.Main() // returns at once unless started as the helper
//		os.Exit(m.Run())
//	}
//
// In a binary that forgets it, the child takes the helper's arguments
// (sh -c …) as its own and fails (an unknown command, an undefined test
// flag): the command never runs, confined or not.
//
// # What the helper does
//
// Where unprivileged user namespaces work (namespaces_linux.go, checked
// once), the helper starts in new user, mount, PID and, without the
// network policy, network namespaces, mapping only the user's own uid.
// In its private mount namespace (it refuses to mount anything unless
// that namespace differs from the server's) it makes /tmp, /var/tmp and
// /dev/shm private tmpfs mounts, hides /run, each root's .catbuddy/, the
// user's catbuddy config and state and the well-known secrets under
// empty read-only mounts, binds back what the command needs (the
// workspace, home, its own TMPDIR and build cache, toolchains on PATH),
// makes the workspace (or only its git directories, nested ones
// included: gitdirs_linux.go) and the module cache read-only,
// and lays the user's Go build cache under the command's GOCACHE as a
// copy-on-write overlay (gocache_linux.go). plan_linux.go decides all of
// this; it is data, so it is tested without running anything.
//
// Then it brings up the private loopback, mounts the PID namespace's
// /proc, drops every capability, sets no_new_privs, restricts itself
// with Landlock (landlock_linux.go: read everywhere, write where the
// plan allows) and, without the network policy, installs a seccomp
// filter that makes socket(AF_UNIX, …) fail (seccomp_linux.go), since
// nothing else stops connect() to a path-named socket.
//
// Without user namespaces the plan is split grants alone (planSplit): a
// directory on the way to a denied place gets only list and execute, and
// each of its other entries the full grant. The names in .catbuddy/ can
// then be listed, which the approval must know (StateNamesListable).
// If the helper's mounts fail it exits with a known code before the
// command ran; Run.MountsFailed sees it, and the caller prepares the
// command again, confined by split grants from then on.
//
// # The copy-on-write layer
//
// With Request.Overlay the command runs over a copy-on-write layer of
// each workspace folder: the helper mounts overlayfs over the folder
// (userxattr, volatile) before it hides or makes read-only anything
// inside it, and what the command creates, changes or deletes lands in
// the layer's upper directory only. ScanUpper reads the change set from
// that directory; OverlayLayer's WriteFile, Delete and Revert place
// pending edits there between commands. The mount lives only in the
// helper's namespace and dies with its last process (layer_linux.go).
//
// # Servers
//
// Request.Server confines a long-lived program that serves cb-ls, a
// language server (package lspclient), the same way: its caches persist
// in a directory of the servers' own, and with namespaces the module
// cache is a copy-on-write view it may download into.
//
// Probe reports how much of this the system gives, in one line for the
// user (`cb-ls version`, each exec result's [sandbox: …] note).
// docs/exec-web-mcp.md has the full list of promises and their limits.
package sandbox
