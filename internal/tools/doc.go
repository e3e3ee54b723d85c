// Package tools is cb-ls's tool layer: the Registry that maps a tool's
// exact name to its schema and execution, the ToolContext that built-in
// tools share, and the built-in tools themselves, one file each.
//
// tools knows nothing about LSP or models. Documents are read and
// written only through the Workspace interface: the CLI implements it on
// the disk (DiskWorkspace), the LSP server with editor buffers and
// workspace/applyEdit.
package tools
