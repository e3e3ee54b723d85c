#!/usr/bin/env bash
# test-vscode.sh — the VS Code extension's tests: typecheck, unit tests
# (node:test), packaging (.vsix), and the end-to-end test in a real VS Code
# (code-server + Chromium, installed by scripts/setup-vscode-e2e.sh on first
# use into the test cache outside the clone: ~5 min once, then ~1 min a run).
#   SKIP_E2E=1  unit tests only      E2E_DIR=…  use another such install
#   E2E_ONLY=pending_diff,pending_chat  only those e2e test files (editors/vscode/e2e/NAME.js;
#               "scenario" is run.js's own; the first test, the API key, always runs);
#               E2E_ONLY=pending_host runs the benchmark bench/pending_host.js
# Artifacts (screenshots, cb-ls and code-server logs): .artifacts/vscode/.
set -euo pipefail
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel 2>/dev/null || (cd "$(dirname "$0")/.." && pwd))
EXT=$ROOT/editors/vscode
. "$ROOT/scripts/test-cache.sh"
own_e2e=$test_cache/vscode-e2e
E2E_DIR=${E2E_DIR:-$own_e2e}
ART=$ROOT/.artifacts/vscode
mkdir -p "$ART"

cd "$EXT"
# Reinstall only when the lock file changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.cb-ls-lock; then
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.cb-ls-lock
fi
npm run -s typecheck
if ! npm test >"$ART/unit.tap" 2>&1; then
  grep -E '^not ok|error' "$ART/unit.tap" || tail -30 "$ART/unit.tap"
  echo "vscode unit tests: FAILED (full output: $ART/unit.tap)" >&2
  exit 1
fi
echo "vscode unit tests: $(sed -n 's/^# pass //p' "$ART/unit.tap") passed, $(sed -n 's/^# fail //p' "$ART/unit.tap") failed"
npm run -s package >/dev/null
echo "packaged $EXT/out/cb-ls.vsix"

if [ "${SKIP_E2E:-}" = 1 ]; then
  echo "vscode e2e: skipped (SKIP_E2E=1)"
  exit 0
fi
if [ "$E2E_DIR" = "$own_e2e" ]; then
  # Instant when the install is complete (its stamp); waits for an install
  # another run started (.ci/run starts one while the Go tests run).
  [ -f "$E2E_DIR/.complete" ] || echo "installing code-server + Chromium into $E2E_DIR (once per machine, ~5 min)"
  cached vscode-e2e bash "$ROOT/scripts/setup-vscode-e2e.sh" "$E2E_DIR"
elif [ ! -x "$E2E_DIR/cs/node_modules/.bin/code-server" ] || [ ! -d "$E2E_DIR/tools/node_modules/playwright-core" ] || ! command -v chromium >/dev/null; then
  echo "test-vscode: E2E_DIR=$E2E_DIR lacks code-server, playwright-core or chromium (scripts/setup-vscode-e2e.sh installs them)" >&2
  exit 1
fi

# gopls, which cb-ls starts to check a pending run's view
# (e2e/pending_diagnostics.js). code-server gives its extensions the PATH of
# the user's login shell, not this one's, so run.js puts GOPLS's directory
# on cb-ls's own. Without it that test skips, or fails under
# CB_LS_REQUIRE_TOOLS=1.
if gopls_dir=$(bash "$ROOT/scripts/get-gopls.sh"); then
  export GOPLS=$gopls_dir/gopls
else
  echo "test-vscode: scripts/get-gopls.sh could not install gopls; the run-view diagnostics test will skip (or fail under CB_LS_REQUIRE_TOOLS=1)" >&2
fi

BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
(cd "$ROOT" && go build -o "$BIN/cb-ls" ./cmd/cb-ls && go build -o "$BIN/scriptmodel" ./internal/agent/agenttest/cmd/scriptmodel)

E2E_DIR=$E2E_DIR CBLS=$BIN/cb-ls SCRIPTMODEL=$BIN/scriptmodel VSIX=$EXT/out/cb-ls.vsix ART=$ART \
  DOCS_SHOT=${DOCS_SHOT:-} E2E_ONLY=${E2E_ONLY:-} node "$EXT/e2e/run.js"
