#!/usr/bin/env bash
# get-node-language-servers.sh — installs the Node language servers the
# language-feature tests drive (pyright, typescript-language-server with
# the TypeScript it runs) into the shared test cache, once per set of
# versions, and prints the directory that holds their programs. Put that
# directory on PATH:
#
#   PATH="$(bash scripts/get-node-language-servers.sh):$PATH"
#
# They come from the npm registry at pinned versions that run on Node 20.
# typescript-language-server 6 needs Node 22, so the 5 line is pinned; the
# TypeScript beside it is 5.9 because TypeScript 7 ships no tsserver.js.
set -euo pipefail
cd "$(dirname "$0")/.."
pyright=${CB_LS_PYRIGHT_VERSION:-1.1.414}
tsls=${CB_LS_TSLS_VERSION:-5.3.0}
typescript=${CB_LS_TYPESCRIPT_VERSION:-5.9.3}
. scripts/test-cache.sh
dir="$test_cache/node-language-servers-pyright$pyright-tsls$tsls-ts$typescript"
install_servers() {
  if [ -x "$dir/node_modules/.bin/pyright-langserver" ] && [ -x "$dir/node_modules/.bin/typescript-language-server" ] &&
    [ -f "$dir/node_modules/typescript/lib/tsserver.js" ]; then
    return
  fi
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
    "pyright@$pyright" "typescript-language-server@$tsls" "typescript@$typescript" >&2
}
cached "node-language-servers" install_servers
echo "$dir/node_modules/.bin"
