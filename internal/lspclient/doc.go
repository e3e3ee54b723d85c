// Package lspclient starts the language servers a headless run is
// configured with (the languageServers setting) and speaks LSP to them as
// a client, so that `cb-ls run` and `cb-ls tools run` answer the language
// tools without an editor. Servers start lazily, on the first question
// about a file with one of their extensions; the files the agent reads
// and edits are kept in sync with them (didOpen, didChange,
// didChangeWatchedFiles); Close shuts them down.
package lspclient
