// Package acp is cb-ls's Agent Client Protocol (v1) front end: the agent
// that Zed, JetBrains IDEs, CodeCompanion, avante.nvim and Emacs
// agent-shell start as `cb-ls acp` and talk to over stdio.
//
// It maps ACP onto the same run the editor and headless front ends use:
// the tools read through the client (fs/read_text_file, so unsaved
// buffers are what the model sees) and every change is one
// session/request_permission carrying the diff, written only after the
// user allowed it (fs/write_text_file, or atomically to disk). Commands
// that want write or network access ask the same way.
//
// The protocol mapping (this package) is kept apart from the transport
// (the SDK's connection, wrapped by wire.go) so that a later protocol
// version is an addition, not a rewrite.
package acp
