package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServesScriptAndRecordsWithoutKeys(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "turns.json")
	record := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(script, []byte(`{"turns":[{"text":"hello"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--script", script, "--record", record}, pw, io.Discard)
		pw.Close()
	}()
	base, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("first stdout line: %v", err)
	}
	base = strings.TrimSpace(base)
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("base URL %q", base)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", strings.NewReader(`{"model":"m","messages":[]}`))
	req.Header.Set("Authorization", "Bearer sk-secret-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"content":"hello"`) {
		t.Errorf("answer %s", body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d", code)
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "sk-secret-key") {
		t.Errorf("record file contains the API key: %s", data)
	}
	var rec struct {
		Index int
		Body  map[string]any
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(data))), &rec); err != nil || rec.Body["model"] != "m" {
		t.Errorf("record line %s: %v", data, err)
	}
}

func TestBadScriptFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(path, []byte(`[{"txt":"typo"}]`), 0o644)
	var stderr strings.Builder
	if code := run(t.Context(), []string{"--script", path}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "txt") {
		t.Errorf("code %d, stderr %q", code, stderr.String())
	}
}
