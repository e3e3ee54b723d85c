#!/usr/bin/env bash
# setup-vscode-e2e.sh DIR — what the VS Code end-to-end test needs, under DIR:
#   DIR/cs     code-server 4.100.3 (a complete VS Code 1.100.3: server and web
#              workbench; it runs on Node 20)
#   DIR/tools  playwright-core, which drives Debian's Chromium
# plus Debian's chromium package itself (apt, needs root). Only npm and Debian
# packages are used. From nothing: about 5 minutes and 1.2 GB; a complete
# install (DIR/.complete) is left alone, so reruns cost nothing.
set -euo pipefail
dir=$(realpath -m "${1:?usage: setup-vscode-e2e.sh DIR}")
code_server=code-server@4.100.3
playwright=playwright-core@1.65.1
stamp="$dir/.complete"
want="$code_server $playwright"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && command -v chromium >/dev/null; then
  exit 0
fi

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" != 20 ]; then
  echo "setup-vscode-e2e: $code_server needs Node 20 (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

apt_install() {
  if [ "$(id -u)" != 0 ]; then
    echo "setup-vscode-e2e: need root to apt-get install $*" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >/dev/null
}
# chromium for the browser; ripgrep (below); a compiler, python3 and the
# Kerberos headers for the native modules code-server builds on install.
need=()
command -v chromium >/dev/null || need+=(chromium fonts-liberation)
command -v rg >/dev/null || need+=(ripgrep)
command -v make >/dev/null && command -v g++ >/dev/null || need+=(build-essential)
command -v python3 >/dev/null || need+=(python3)
[ -f /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

rm -rf "$dir"
mkdir -p "$dir/cs" "$dir/tools" "$dir/tmp"
export TMPDIR="$dir/tmp" npm_config_cache="${npm_config_cache:-$dir/npm-cache}"

# VS Code's @vscode/ripgrep downloads rg from GitHub in its postinstall. Hand
# it Debian's rg instead, in the cache file it looks for first.
rg_cache="$TMPDIR/vscode-ripgrep-cache-1.15.11"
mkdir -p "$rg_cache"
cp "$(command -v rg)" "$TMPDIR/rg"
tar -czf "$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$TMPDIR" rg

# As root, npm runs install scripts as an unprivileged user unless told not
# to (code-server's postinstall writes into its own tree); node-pty's script
# runs npx, which must not stop to ask.
(cd "$dir/cs" && echo '{"private":true}' >package.json &&
  npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund --loglevel=error "$code_server")
(cd "$dir/tools" && echo '{"private":true}' >package.json &&
  npm install --no-audit --no-fund --loglevel=error "$playwright")

XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data" XDG_CACHE_HOME="$dir/xdg/cache" \
  "$dir/cs/node_modules/.bin/code-server" --version | tail -1
rm -rf "$dir/tmp" "$dir/npm-cache"
echo "$want" >"$stamp"
