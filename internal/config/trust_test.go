package config

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTrustFollowsTheConfigContent(t *testing.T) {
	root := t.TempDir()
	s := TrustStore{Path: filepath.Join(t.TempDir(), "state", "trust.json")}

	p, err := IdentifyProject(root)
	if err != nil {
		t.Fatal(err)
	}
	if p.HasConfig {
		t.Error("a project without .catbuddy files has config")
	}
	write(t, filepath.Join(root, ".catbuddy", "mcp.json"), `{"mcpServers":{"x":{"command":"echo"}}}`)
	p, err = IdentifyProject(root)
	if err != nil || !p.HasConfig {
		t.Fatalf("IdentifyProject: %+v %v", p, err)
	}
	if ok, err := s.Trusted(p); ok || err != nil {
		t.Fatalf("trusted before any decision: %v %v", ok, err)
	}
	if err := s.Trust(p); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Trusted(p); !ok {
		t.Fatal("not trusted after Trust")
	}
	// The same project through a symlink is the same project.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if viaLink, _ := IdentifyProject(link); viaLink != p {
		t.Errorf("through a symlink: %+v, want %+v", viaLink, p)
	}
	// A changed file, or a new one, asks again.
	write(t, filepath.Join(root, ".catbuddy", "mcp.json"), `{"mcpServers":{"x":{"command":"sh"}}}`)
	changed, _ := IdentifyProject(root)
	if ok, _ := s.Trusted(changed); ok {
		t.Error("a changed mcp.json is still trusted")
	}
	write(t, filepath.Join(root, ".catbuddy", "mcp.json"), `{"mcpServers":{"x":{"command":"echo"}}}`)
	write(t, filepath.Join(root, ".catbuddy", "config.json"), `{"baseUrl":"http://x/v1"}`)
	added, _ := IdentifyProject(root)
	if ok, _ := s.Trusted(added); ok {
		t.Error("a new config.json is still trusted")
	}
	if err := s.Untrust(p.Root); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Trusted(p); ok {
		t.Error("trusted after Untrust")
	}
	if fi, err := os.Stat(filepath.Dir(s.Path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir: %v %v", fi.Mode(), err)
	}
}

func TestMalformedStoreTrustsNothingAndIsKept(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".catbuddy", "config.json"), `{}`)
	p, _ := IdentifyProject(root)
	s := TrustStore{Path: filepath.Join(t.TempDir(), "trust.json")}
	write(t, s.Path, `{not json`)
	if ok, err := s.Trusted(p); ok || err == nil {
		t.Errorf("malformed store: trusted=%v err=%v", ok, err)
	}
	if err := s.Trust(p); err == nil {
		t.Error("Trust overwrote a malformed store")
	}
	if b, _ := os.ReadFile(s.Path); string(b) != `{not json` {
		t.Errorf("store changed: %q", b)
	}
}
