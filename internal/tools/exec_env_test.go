package tools

import (
	"strings"
	"testing"
)

// TestExecEnvironmentIsAllowList: a command inherits what shells and
// toolchains need, and nothing else — not tokens whatever their name,
// not database URLs, not the user's ssh-agent.
func TestExecEnvironmentIsAllowList(t *testing.T) {
	for k, v := range map[string]string{
		"OPENAI_API_KEY":        "sk-openai",
		"ANTHROPIC_API_KEY":     "sk-ant",
		"GITHUB_PAT":            "ghp-pat",
		"GITHUB_TOKEN":          "ghp-token",
		"DATABASE_URL":          "postgres://u:hunter2@db/x",
		"SSH_AUTH_SOCK":         "/tmp/ssh-agent.sock",
		"VSCODE_IPC_HOOK_CLI":   "/run/user/1/vscode-ipc.sock",
		"NVIM":                  "/run/user/1/nvim.1.0",
		"GO_SECRET_TOKEN":       "go-secret",
		"GOPROXY":               "https://me:tok3n@proxy.example/,direct",
		"GOFLAGS":               "-count=1",
		"LC_ALL":                "C.UTF-8",
		"CB_LS_TEST_ORDINARY":   "ordinary",
		"CB_LS_TEST_ADDED_ONE":  "added-by-prefix",
		"MY_DEPLOY_TOKEN":       "named-by-user",
		"MY_OTHER_DEPLOY_TOKEN": "pattern-only",
	} {
		t.Setenv(k, v)
	}
	r, _ := execContext(t, ExecOptions{Env: []string{"CB_LS_TEST_ADDED_*", "MY_DEPLOY_TOKEN", "MY_OTHER_*"}})
	res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": "env"})
	for _, gone := range []string{"sk-openai", "sk-ant", "ghp-pat", "ghp-token", "hunter2", "ssh-agent.sock", "vscode-ipc", "nvim.1.0", "go-secret", "tok3n", "ordinary", "pattern-only", "CB_LS_SANDBOX_SPEC"} {
		if strings.Contains(res.Output, gone) {
			t.Errorf("env output contains %q:\n%s", gone, res.Output)
		}
	}
	for _, kept := range []string{"GOFLAGS=-count=1", "LC_ALL=C.UTF-8", "CB_LS_TEST_ADDED_ONE=added-by-prefix", "MY_DEPLOY_TOKEN=named-by-user", "PATH=", "HOME="} {
		if !strings.Contains(res.Output, kept) {
			t.Errorf("env output lacks %q:\n%s", kept, res.Output)
		}
	}
}
