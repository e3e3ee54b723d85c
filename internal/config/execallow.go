package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// AddExecAllowRule stores prefix in tools.exec.allow of the user's config
// file ($XDG_CONFIG_HOME/catbuddy/config.json) and returns the file's
// path. An "Always allow" answer lands there, never in a project's config:
// the user's own file is the only one a cloned repository cannot write.
// Every other key of the file is kept as it was.
func AddExecAllowRule(prefix string) (string, error) {
	path := userConfigFile(os.Getenv)
	if path == "" {
		return "", errors.New("no user config directory (neither XDG_CONFIG_HOME nor a home directory)")
	}
	return path, addExecAllowRule(path, prefix)
}

func addExecAllowRule(path, prefix string) error {
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("config %s: %w", path, err)
	default:
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &doc); err != nil {
				return fmt.Errorf("config %s: %w", path, err)
			}
		}
	}
	toolsDoc := map[string]json.RawMessage{}
	if raw, ok := doc["tools"]; ok {
		if err := json.Unmarshal(raw, &toolsDoc); err != nil {
			return fmt.Errorf("config %s: tools: %w", path, err)
		}
	}
	var exec ExecSettings
	if raw, ok := toolsDoc["exec"]; ok {
		if err := json.Unmarshal(raw, &exec); err != nil {
			return fmt.Errorf("config %s: tools.exec: %w", path, err)
		}
	}
	if slices.Contains(exec.Allow, prefix) {
		return nil
	}
	exec.Allow = append(exec.Allow, prefix)
	var errs []error
	toolsDoc["exec"], err = json.Marshal(exec)
	errs = append(errs, err)
	doc["tools"], err = json.Marshal(toolsDoc)
	errs = append(errs, err)
	out, err := json.MarshalIndent(doc, "", "  ")
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.json")
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(out, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("config %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	_ = os.Chmod(tmp.Name(), 0o600)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}
