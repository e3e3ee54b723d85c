package lspfeatures

import (
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is the JSON-RPC payload codec of every LSP connection cb-ls
// makes: the server's to the editor, the headless client's to the
// language servers it starts, and the fake editor's in tests. It encodes
// with the protocol package's union-aware encoder (what protocol.NewServer
// installs, unexported there) and passes a jsonrpc2.RawMessage, or a
// pointer to one, through as it is, so a handler or caller can answer or
// read a payload it does not decode.
type Codec struct{}

// Marshal implements jsonrpc2.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
