package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/testenv"
)

// TestServeExitsWithStdinOpen: editors may keep the pipe open after
// "exit". The server must not sit in its drain timeout then: stdin is
// read so that closing it ends the blocked read at once.
func TestServeExitsWithStdinOpen(t *testing.T) {
	testenv.SkipIfShort(t, "builds and runs the cb-ls binary")
	bin := filepath.Join(t.TempDir(), "cb-ls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--log-level", "debug")
	stdin, err := cmd.StdinPipe() // a pipe, as editors use; kept open until the end
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	send := func(msg string) {
		if _, err := fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(msg), msg); err != nil {
			t.Fatal(err)
		}
	}
	await := func(id int) {
		for {
			var n int
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("reading the answer to %d: %v", id, err)
				}
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
				if line == "\r\n" {
					break
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				t.Fatal(err)
			}
			var m struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal(body, &m) == nil && m.ID != nil && *m.ID == id {
				return
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://` + t.TempDir() + `","capabilities":{}}}`)
	await(1)
	send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	await(2)
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after shutdown: %v (want code 0)\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "did not drain") {
		t.Errorf("the server waited out its drain timeout although stdin is a pipe:\n%s", stderr.String())
	}
}
