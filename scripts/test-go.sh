#!/usr/bin/env bash
# Go tests: format, vet, staticcheck, and the whole suite under the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
# grep's tests compare matches with ripgrep's; the sandbox and exec tests
# run perl, python3, cargo and pytest inside the sandbox. .ci/run installs them; a
# plain `make test-go` tries once (as root, on Debian) and otherwise fails
# on the first test that needs one.
missing=()
for p in rg:ripgrep perl:perl python3:python3 cargo:cargo pytest:python3-pytest; do
  command -v "${p%%:*}" >/dev/null || missing+=("${p#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  (apt-get update -qq && apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 || true
fi
# The language tools' tests drive a real gopls (pinned, from the Go module
# proxy) and real pyright and typescript-language-server (pinned, from npm),
# each cached once per machine.
PATH="$(bash scripts/get-gopls.sh):$(bash scripts/get-node-language-servers.sh):$PATH"
export PATH
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi
go vet ./...
# staticcheck, pinned: go run fetches it from the Go module proxy into the
# module cache once, without touching go.mod. A finding that is deliberate
# carries a //lint:ignore with the reason.
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# CI installs every outside program the tests use and runs where the
# command sandbox works (Landlock, user namespaces): a missing program or
# sandbox feature fails here instead of skipping (internal/testenv).
export CB_LS_REQUIRE_TOOLS=1
go test -race -count=1 ./...
