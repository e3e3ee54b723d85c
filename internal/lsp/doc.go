// Package lsp is cb-ls's language server: it keeps the editor's buffers,
// turns workspace folders into the PathGuard's boundary, and sends every
// change the agent makes to the editor as a workspace/applyEdit the user
// can review.
package lsp
