// Package lspclient starts the language servers a headless run is
// configured with (the languageServers setting) and speaks LSP to them as
// a client, so that `cb-ls run` and `cb-ls tools run` answer the language
// tools without an editor. The servers whose language the workspace has
// start with the session (presence.go); a question waits for its server
// to load its project (readiness.go); the files the agent reads and
// edits, and those that name a symbol asked about, are kept in sync with
// them (didOpen, didChange, didChangeWatchedFiles); a server that cannot
// start or answer is withdrawn, one that crashes restarted once
// (status.go); Close shuts them down. Their published diagnostics check a
// run's edits (Checks: checks.go, diagnostics.go): shown the run's text,
// read once settled, for the edit's result and the diagnostics tool; the
// editor's front end starts servers for a pending run's view, which
// check its edits and answer its language tools (internal/app). The servers run in
// the command sandbox where there is one, the workspace read-only to them
// (confine.go): every change to the project goes through the tools'
// review.
package lspclient
