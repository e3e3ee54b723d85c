#!/usr/bin/env bash
# test-project-tools.sh: build cb-ls and the scripted model, and check that a
# fixture project's own tools (node --test, vitest, remark --frail) see
# nothing of a headless run whose changes are pending, and everything once
# they are kept (test/project-tools). Needs Node >= 20, npm and git. The
# fixture's locked packages are installed with npm ci once per lock file
# into the shared test cache (scripts/test-cache.sh) and copied into each
# run's fixture from there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
command -v git >/dev/null || { echo "test-project-tools: git is needed" >&2; exit 1; }

go build -o "$tmp/cb-ls" "$root/cmd/cb-ls"
go build -o "$tmp/scriptmodel" "$root/internal/agent/agenttest/cmd/scriptmodel"

. "$root/scripts/test-cache.sh"
fixture="$root/test/project-tools/fixture"
modules="$test_cache/project-tools-$(sha256sum "$fixture/package-lock.json" | cut -c1-16)"
install_modules() {
  [ -f "$modules/installed" ] && return
  rm -rf "$modules"
  mkdir -p "$modules"
  cp "$fixture/package.json" "$fixture/package-lock.json" "$modules/"
  (cd "$modules" && npm ci --no-audit --no-fund --loglevel=error)
  touch "$modules/installed"
}
cached project-tools install_modules

cd "$root/test/project-tools"
CB_LS_BIN="$tmp/cb-ls" SCRIPTMODEL_BIN="$tmp/scriptmodel" FIXTURE_MODULES="$modules/node_modules" \
  node --test --test-reporter=spec tools.test.js
