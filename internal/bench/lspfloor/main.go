// Command lspfloor is the floor for the keystroke benchmark: a stdio LSP
// server that frames every message and decodes it, params included, with
// encoding/json, keeps the opened document's text and applies every
// change to it (text.go), answers every request at once, and does nothing
// else. Any real server does at least this much per keystroke, so cb-ls's
// cost is quoted as a ratio to it, measured in the same run by
// internal/bench/lspdrive (bench/keystroke.sh).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type didOpen struct {
	TextDocument struct {
		URI        string `json:"uri"`
		LanguageID string `json:"languageId"`
		Version    int    `json:"version"`
		Text       string `json:"text"`
	} `json:"textDocument"`
}

type didChange struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
	} `json:"textDocument"`
	ContentChanges []struct {
		Range *lspRange `json:"range"`
		Text  string    `json:"text"`
	} `json:"contentChanges"`
}

type executeCommand struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

func main() {
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriter(os.Stdout)
	docs := map[string]*text{}
	reply := func(id json.RawMessage, member, value string) {
		body := `{"jsonrpc":"2.0","id":` + string(id) + `,"` + member + `":` + value + `}`
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
		_ = w.Flush()
	}
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			reply(m.ID, "result", `{"capabilities":{"textDocumentSync":2,"executeCommandProvider":{"commands":[]}}}`)
		case "textDocument/didOpen":
			var p didOpen
			if json.Unmarshal(m.Params, &p) == nil {
				docs[p.TextDocument.URI] = newText(p.TextDocument.Text)
			}
		case "textDocument/didChange":
			var p didChange
			if json.Unmarshal(m.Params, &p) != nil {
				continue
			}
			if t := docs[p.TextDocument.URI]; t != nil {
				for _, c := range p.ContentChanges {
					t.apply(c.Range, c.Text)
				}
			}
		case "workspace/executeCommand":
			var p executeCommand
			_ = json.Unmarshal(m.Params, &p)
			reply(m.ID, "error", `{"code":-32601,"message":"unknown command"}`)
		case "exit":
			return
		default:
			if len(m.ID) > 0 {
				reply(m.ID, "result", "null")
			}
		}
	}
}

// readFrame reads one Content-Length frame into a fresh buffer, as a
// straightforward server would.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}
