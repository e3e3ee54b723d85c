// Package lspfeatures answers the language tools' questions
// (tools.LanguageFeatures) in LSP terms: it turns a tool's byte position
// into a request of a standard LSP method, sends it over a Conn, and turns
// the standard result back into lines and byte offsets. The Conn is the
// editor's bridge (the request catbuddy/languageFeature, in internal/lsp)
// or a language server cb-ls started itself (internal/lspclient); the
// conversion is the same for both, so both give the model the same answers.
// Codec, the JSON-RPC payload codec, is shared by every LSP connection.
package lspfeatures
