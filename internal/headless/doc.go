// Package headless is the front end of cb-ls run: the agent against the
// files on disk, with progress and diffs on stderr, the answer on
// stdout, and the user asked on the terminal (or not at all, with
// --yes or in a script). It parses no flags: cmd/cb-ls does, and hands
// it Options. Like the LSP server and the ACP agent, it builds its runs
// through internal/app, the one run assembly.
package headless
