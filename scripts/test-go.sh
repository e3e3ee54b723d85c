#!/usr/bin/env bash
# Go tests: format, vet, and the whole suite under the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v rg >/dev/null; then
  # grep's tests compare matches with ripgrep's.
  (apt-get update -qq && apt-get install -y -qq ripgrep) >/dev/null 2>&1 || true
fi
# The language tools' tests drive a real gopls (pinned, from the Go module
# proxy, cached once per machine).
PATH="$(bash scripts/get-gopls.sh):$PATH"
export PATH
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi
go vet ./...
# CI installs every outside program the tests use: a missing one fails here
# instead of skipping (internal/testenv).
export CB_LS_REQUIRE_TOOLS=1
go test -race -count=1 ./...
