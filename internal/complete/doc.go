// Package complete answers completions at the cursor
// (textDocument/inlineCompletion) from the user's own model: it builds
// the prompt (the text around the cursor, the file's outline, the open
// buffers the file imports and the ones edited last, the last edits),
// asks the model in the wire format it speaks (Ollama's /api/generate
// or OpenAI's /v1/completions with a suffix, a coder model's
// fill-in-the-middle tokens, or a chat request through the agent's
// providers), and trims the answer to what belongs at the cursor.
//
//   - Tracker (tracker.go) is what the editor did: the recent edits,
//     recorded from every didChange in one place (so next-edit
//     suggestions can read the same history), and the completion
//     requests a newer keystroke supersedes.
//   - Filter (filter.go) says which files are never completed nor sent:
//     secrets and gitignored files.
//   - Build (prompt.go, context.go, outline.go) turns a Request and the
//     open buffers (Source) into a Prompt within a byte budget.
//   - Engine.Complete (engine.go, wire.go, fim.go) sends it and trims the
//     answer (trim.go).
//   - Engine.NextEdit (nextedit.go) is a next-edit suggestion: the region
//     around the last edit and what the user changed there go to the
//     model, which answers the region rewritten; the diff against the
//     region as it is gives one exact line-range replacement.
//
// It knows models (through agent's providers) and settings (config),
// never the LSP: internal/lsp reads the buffers and calls it.
package complete
