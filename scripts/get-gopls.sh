#!/usr/bin/env bash
# get-gopls.sh — installs the gopls the language-feature tests drive (the
# headless `cb-ls run` tests in Go, the Neovim end-to-end tests) into the
# shared test cache, once per version, and prints the directory that holds
# the binary. Put that directory on PATH:
#
#   PATH="$(bash scripts/get-gopls.sh):$PATH"
#
# gopls comes from the Go module proxy at a pinned version that builds with
# go.mod's Go. CB_LS_GOPLS_VERSION overrides the version.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${CB_LS_GOPLS_VERSION:-v0.23.0}
. scripts/test-cache.sh
dir="$test_cache/gopls-$version"
install_gopls() {
  if [ -x "$dir/gopls" ] && "$dir/gopls" version >/dev/null 2>&1; then
    return
  fi
  mkdir -p "$dir"
  GOBIN="$dir" go install "golang.org/x/tools/gopls@$version" >&2
}
cached "gopls-$version" install_gopls
echo "$dir"
