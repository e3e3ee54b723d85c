package lspfeatures

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// callItem is a CallHierarchyItem; Raw keeps it whole, because the
// server wants the item back exactly (its data field) in the second step.
type callItem struct {
	Name           string              `json:"name"`
	Kind           protocol.SymbolKind `json:"kind"`
	Detail         string              `json:"detail"`
	URI            uri.URI             `json:"uri"`
	Range          protocol.Range      `json:"range"`
	SelectionRange protocol.Range      `json:"selectionRange"`
}

func (c callItem) symbol() tools.Symbol {
	loc := location(c.URI, c.Range)
	loc.Line = int(c.SelectionRange.Start.Line) + 1
	return tools.Symbol{Name: c.Name, Detail: c.Detail, Kind: kindName(c.Kind), Location: loc}
}

// Calls implements tools.LanguageFeatures: prepareCallHierarchy at the
// position, then incomingCalls or outgoingCalls for each item.
func (f *Features) Calls(ctx context.Context, op tools.LanguageOp, at tools.Position) ([]tools.Call, error) {
	pp, _, err := f.at(ctx, op, at)
	if err != nil {
		return nil, err
	}
	prepare := protocol.MethodTextDocumentPrepareCallHierarchy
	raw, err := f.Conn.Call(ctx, at.Path, prepare, pp)
	if err != nil {
		return nil, err
	}
	items, err := decodeList[json.RawMessage](raw)
	if err != nil {
		return nil, badAnswer(prepare, err)
	}
	method := methodOf[op]
	var out []tools.Call
	for _, item := range items {
		var self callItem
		if err := json.Unmarshal(item, &self); err != nil {
			return nil, badAnswer(prepare, err)
		}
		raw, err := f.Conn.Call(ctx, at.Path, method, struct {
			Item json.RawMessage `json:"item"`
		}{item})
		if err != nil {
			return nil, err
		}
		calls, err := decodeList[struct {
			From       *callItem        `json:"from"`
			To         *callItem        `json:"to"`
			FromRanges []protocol.Range `json:"fromRanges"`
		}](raw)
		if err != nil {
			return nil, badAnswer(method, err)
		}
		for _, c := range calls {
			other, sitesIn := c.To, self.URI
			if op == tools.OpIncomingCalls {
				other = c.From
				if other != nil {
					sitesIn = other.URI
				}
			}
			if other == nil {
				continue
			}
			call := tools.Call{Symbol: other.symbol()}
			for _, r := range c.FromRanges {
				call.Sites = append(call.Sites, location(sitesIn, r))
			}
			out = append(out, call)
		}
	}
	return out, nil
}
