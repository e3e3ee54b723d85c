// Package shell runs one command line for the exec tool, confined or
// not: the environment it inherits (an allow-list; no credentials),
// its process group, killed whole on timeout, cancellation or when the
// shell exits, and its output, bounded to its head and tail. It also
// names the workspace files whose content runs later outside any
// sandbox (RunsLater), which a command's change report flags.
//
// Confinement is package sandbox's: its commands are run with Run like
// any other. shell imports nothing of cb-ls's.
package shell
