#!/usr/bin/env bash
# bench/lsp/run.sh: measure cb-ls's document sync and start-up end to end with
# the repository's driver (internal/bench/lspdrive), side by side with a peer server
# (bench/lsp/peer: vscode-languageserver's TextDocuments), and write the JSON
# results plus a markdown summary to $OUT.
#
#   bash bench/lsp/run.sh            # full: 1 MB + 10 MB typing, start-up, 1,000 documents
#   QUICK=1 bash bench/lsp/run.sh    # fewer changes and runs, for a smoke check
#
# Environment:
#   GOPLS   a gopls binary to compare with as well (e.g. from
#           `GOBIN=/tmp/gobin go install golang.org/x/tools/gopls@v0.23.0`); skipped if unset
#   OUT     where results go (default: .artifacts/bench-lsp)
#   RUNS N STARTS   interleaved runs per server, changes per run, start-up runs
# The peer is npm-installed into a temporary copy, never into the repository;
# without npm it is skipped.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${OUT:-$root/.artifacts/bench-lsp}"
if [ -n "${QUICK:-}" ]; then RUNS="${RUNS:-1}"; N="${N:-300}"; STARTS="${STARTS:-5}"; else RUNS="${RUNS:-3}"; N="${N:-2000}"; STARTS="${STARTS:-21}"; fi
GOPLS_N="${GOPLS_N:-40}" # gopls type-checks on every change (about 1 s at 10 MB): fewer changes

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$OUT"

echo "building cb-ls and the driver" >&2
go build -C "$root" -o "$tmp/cb-ls" ./cmd/cb-ls
go build -C "$root" -o "$tmp/drive" ./internal/bench/lspdrive
drive="$tmp/drive"

servers=(-server "cb-ls=$tmp/cb-ls serve")
peers=()
if command -v npm >/dev/null; then
  mkdir "$tmp/peer"
  cp "$root"/bench/lsp/peer/{package.json,package-lock.json,server.js} "$tmp/peer/"
  (cd "$tmp/peer" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  peers+=(-server "peer=node $tmp/peer/server.js --stdio")
else
  echo "peer skipped: npm is missing" >&2
fi
gopls=()
if [ -n "${GOPLS:-}" ] && [ -x "$GOPLS" ]; then
  gopls=(-server "gopls=$GOPLS")
else
  echo "gopls skipped: set GOPLS to a gopls binary" >&2
fi

# Typing: one-character incremental didChanges at scattered lines of a
# generated Go document, each followed by a probe request.
for size in 1MB 10MB; do
  echo "typing into $size" >&2
  "$drive" -size "$size" -n "$N" -runs "$RUNS" "${servers[@]}" "${peers[@]}" >"$OUT/typing-$size.json"
  if [ ${#gopls[@]} -gt 0 ]; then
    "$drive" -size "$size" -n "$GOPLS_N" -runs 1 "${gopls[@]}" >>"$OUT/typing-$size.json"
  fi
done

# Start-up: process start to the initialize answer, a tiny document.
echo "start-up" >&2
"$drive" -size 1KB -n 0 -runs "$STARTS" "${servers[@]}" "${peers[@]}" "${gopls[@]}" >"$OUT/startup.json"

# Memory: 1,000 open documents of 100 KB each (the full binary's RSS).
echo "1,000 open documents" >&2
node "$root/bench/lsp/manydocs.js" --docs 1000 --size 102400 -- "$tmp/cb-ls" serve >"$OUT/manydocs-cb-ls.json"
if [ ${#peers[@]} -gt 0 ]; then
  node "$root/bench/lsp/manydocs.js" --docs 1000 --size 102400 -- node "$tmp/peer/server.js" --stdio >"$OUT/manydocs-peer.json"
fi

node "$root/bench/lsp/summarize.js" "$OUT" | tee "$OUT/summary.md"
