#!/usr/bin/env bash
# Neovim plugin tests: Lua unit tests and end-to-end tests (real cb-ls, a
# scripted model server) in real headless Neovim, on Debian's 0.7.2 and on
# 0.10.x from Debian trixie and 0.12.x from Debian sid (scripts/get-nvim.sh), with gopls
# (scripts/get-gopls.sh) for the language features. Installs what it needs, once.
#   scripts/test-neovim.sh [NAME]   only the test files whose name contains NAME
set -euo pipefail
export CB_NVIM_TESTS=${1:-}
cd "$(dirname "$0")/.."
repo=$(pwd)
cache="$repo/.cache/neovim"
mkdir -p "$cache/bin"

# Neovim 0.7.2 from apt (waits for other apt users instead of failing).
if ! command -v nvim >/dev/null || ! nvim --version | head -1 | grep -q 'v0\.7\.'; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq neovim >/dev/null
fi
nvims=("$(command -v nvim)")

# Neovim 0.10.x from Debian trixie, unpacked into the test cache (not
# installed). NVIM_010 names another 0.10 binary.
. scripts/test-cache.sh
nvim010=${NVIM_010:-$test_cache/nvim-0.10/nvim}
if [ ! -x "$nvim010" ]; then
  echo "test-neovim: fetching Neovim 0.10 into $test_cache/nvim-0.10"
  cached nvim-0.10 sh -c '[ -x "$1/nvim" ] || bash scripts/get-nvim.sh "$1" trixie >/dev/null' _ "$test_cache/nvim-0.10"
fi
nvims+=("$nvim010")
only=("$CB_NVIM_TESTS" "$CB_NVIM_TESTS")

# Neovim 0.12 from Debian sid, the current release: the whole suite runs
# there too, with its own inline completion client (vim.lsp.inline_completion).
# Its markdown ftplugin fails here (the unpacked parsers are not on the
# runtimepath), as it does for users with a parser that cannot load: the
# plugin must open its markdown buffers all the same. NVIM_012 names another
# 0.12 binary; NVIM_012=none skips it.
nvim012=${NVIM_012:-$test_cache/nvim-0.12/nvim}
if [ "$nvim012" != none ]; then
  if [ ! -x "$nvim012" ]; then
    echo "test-neovim: fetching Neovim 0.12 into $test_cache/nvim-0.12"
    cached nvim-0.12 sh -c '[ -x "$1/nvim" ] || bash scripts/get-nvim.sh "$1" sid >/dev/null' _ "$test_cache/nvim-0.12"
  fi
  nvims+=("$nvim012")
  only+=("$CB_NVIM_TESTS")
fi

# gopls, for the language-feature tests (the editor's language servers as
# the agent's tools), from the Go module proxy at the pinned version.
export GOPLS="$(bash scripts/get-gopls.sh)/gopls"

# The server and the scripted model server.
go build -o "$cache/bin/cb-ls" ./cmd/cb-ls
go build -o "$cache/bin/scriptmodel" ./internal/agent/agenttest/cmd/scriptmodel
export CB_LS="$cache/bin/cb-ls" SCRIPTMODEL="$cache/bin/scriptmodel"

passed=0
failed=0
cd editors/neovim
for i in "${!nvims[@]}"; do
  nv=${nvims[$i]}
  version=$("$nv" --version | head -1)
  export NVIM_BIN="$nv" # tests start child Neovims with it
  export CB_NVIM_TESTS=${only[$i]}
  for suite in unit e2e; do
    echo "== $version: $suite"
    log=$(mktemp)
    # HOME/XDG dirs are fresh so no user config, shada or log leaks in.
    xdg=$(mktemp -d)
    set +e
    HOME="$xdg" XDG_CONFIG_HOME="$xdg/config" XDG_DATA_HOME="$xdg/data" XDG_STATE_HOME="$xdg/state" XDG_CACHE_HOME="$xdg/cache" \
      timeout 300 "$nv" --headless --clean -n -u NONE -i NONE -c "luafile tests/$suite.lua" >"$log" 2>&1
    rc=$?
    set -e
    cat "$log"
    summary=$(grep -E '^(unit|e2e): [0-9]+ passed, [0-9]+ failed' "$log" | tail -1 || true)
    if [ -n "$summary" ]; then
      p=$(echo "$summary" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
      f=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    else
      p=0; f=1
      echo "test-neovim: $suite on $version ended without a summary (exit $rc)"
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    passed=$((passed + p)); failed=$((failed + f))
    rm -rf "$log" "$xdg"
  done
done
echo "neovim: $passed passed, $failed failed"
# A NAME that matches no test file in any suite is a mistake, not a pass.
if [ "$passed" -eq 0 ]; then echo "test-neovim: no test ran${1:+ (no file matches \"$1\")}"; exit 1; fi
[ "$failed" -eq 0 ]
