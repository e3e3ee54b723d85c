#!/usr/bin/env bash
# get-node-language-servers.sh — installs the Node language servers the
# language-feature tests drive into the shared test cache, once per set of
# versions, and prints the directory that holds their programs. Put that
# directory on PATH:
#
#   PATH="$(bash scripts/get-node-language-servers.sh):$PATH"
#
# It holds pyright-langserver, typescript-language-server (with the
# TypeScript it runs), and typescript-language-server-ts7: the same server
# beside TypeScript 7, which ships no tsserver.js (a broken installation
# users meet; the tests check that cb-ls withdraws its tools).
# They come from the npm registry at pinned versions that run on Node 20:
# typescript-language-server 6 needs Node 22, so the 5 line is pinned.
set -euo pipefail
cd "$(dirname "$0")/.."
pyright=${CB_LS_PYRIGHT_VERSION:-1.1.414}
tsls=${CB_LS_TSLS_VERSION:-5.3.0}
typescript=${CB_LS_TYPESCRIPT_VERSION:-5.9.3}
. scripts/test-cache.sh
dir="$test_cache/node-language-servers-pyright$pyright-tsls$tsls-ts$typescript"
npm_install() {
  local prefix=$1
  shift
  mkdir -p "$prefix"
  [ -f "$prefix/package.json" ] || echo '{"private":true}' >"$prefix/package.json"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "$@" >&2
}
install_servers() {
  if [ -x "$dir/bin/pyright-langserver" ] && [ -x "$dir/bin/typescript-language-server" ] &&
    [ -x "$dir/bin/typescript-language-server-ts7" ]; then
    return
  fi
  npm_install "$dir" "pyright@$pyright" "typescript-language-server@$tsls" "typescript@$typescript"
  # TypeScript 7's native compiler comes in optional packages; without
  # them (and in any case) it has no lib/tsserver.js.
  npm_install "$dir/ts7" --omit=optional "typescript-language-server@$tsls" "typescript@7.0.2"
  mkdir -p "$dir/bin"
  ln -sf ../node_modules/.bin/pyright-langserver "$dir/bin/pyright-langserver"
  ln -sf ../node_modules/.bin/typescript-language-server "$dir/bin/typescript-language-server"
  printf '#!/bin/sh\nexec node "%s/ts7/node_modules/typescript-language-server/lib/cli.mjs" "$@"\n' "$dir" >"$dir/bin/typescript-language-server-ts7"
  chmod +x "$dir/bin/typescript-language-server-ts7"
}
cached "node-language-servers" install_servers
echo "$dir/bin"
