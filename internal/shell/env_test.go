package shell

import (
	"slices"
	"testing"
)

func TestEnvironOverrides(t *testing.T) {
	env, dropped := Environ([]string{"PATH=/bin", "TMPDIR=/tmp", "GOCACHE=/home/u/.cache/go-build", "SECRET_THING=x"}, nil,
		map[string]string{"TMPDIR": "/tmp/private", "GOCACHE": "/c/go-build"})
	slices.Sort(env)
	if want := []string{"GOCACHE=/c/go-build", "PATH=/bin", "TMPDIR=/tmp/private"}; !slices.Equal(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
	if !slices.Equal(dropped, []string{"SECRET_THING"}) {
		t.Errorf("dropped = %q", dropped)
	}
}

func TestIsSecretEnv(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "AWS_ACCESS_KEY_ID": true, "db_password": true, "HF_TOKEN": true,
		"GOOGLE_APPLICATION_CREDENTIALS": true, "GOPATH": false, "PATH": false, "TOKENIZERS_PARALLELISM": false,
	} {
		if got := IsSecretEnv(name); got != want {
			t.Errorf("IsSecretEnv(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestSettings(t *testing.T) {
	env, _ := Environ([]string{"NO_COLOR=", "PATH=/bin"}, nil, Settings(true))
	slices.Sort(env)
	if want := []string{"NO_COLOR=1", "PATH=/bin", "PIP_RETRIES=0", "npm_config_offline=true"}; !slices.Equal(env, want) {
		t.Errorf("offline env = %q, want %q", env, want)
	}
	if s := Settings(false); len(s) != 1 || s["NO_COLOR"] != "1" {
		t.Errorf("online settings = %v", s)
	}
}

// TestEnvironDropsShellStartup: commands run in bash, which runs
// $BASH_ENV before the line and imports SHELLOPTS, BASHOPTS and
// exported functions; none of them is inherited.
func TestEnvironDropsShellStartup(t *testing.T) {
	env, _ := Environ([]string{"PATH=/bin", "BASH_ENV=/tmp/x", "ENV=/tmp/y", "SHELLOPTS=xtrace", "BASHOPTS=extglob", "BASH_FUNC_ls%%=() { rm -rf ~; }"}, nil, nil)
	if !slices.Equal(env, []string{"PATH=/bin"}) {
		t.Errorf("env = %q, want only PATH", env)
	}
}
