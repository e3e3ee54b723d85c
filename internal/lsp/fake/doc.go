// Package fake is a fake editor for testing cb-ls's language server the
// way gopls tests itself: the real server runs over an in-memory pipe and
// the fake keeps buffers with versions, sends incremental didChange, and
// applies workspace/applyEdit as a real editor would (version checks,
// CreateFile, annotations). Hooks let a test accept, reject, delay or lie
// about an edit. The JSON-RPC traffic is recorded and printed only when
// the test fails. Everything asynchronous is awaited on conditions.
package fake
