#!/usr/bin/env bash
# bench/lsp/run.sh: measure cb-ls's document sync and start-up end to end with
# lspdrive (../shared/tools/lspdrive), side by side with the peers, and write
# the JSON results plus a markdown summary to $OUT.
#
#   bash bench/lsp/run.sh            # full: 1 MB + 10 MB typing, start-up, 1,000 documents
#   QUICK=1 bash bench/lsp/run.sh    # fewer changes and runs, for a smoke check
#
# Environment:
#   LSPDRIVE_SRC  lspdrive sources (default: ../shared/tools/lspdrive next to the repo)
#   PEER_SRC      textdoc-server sources (default: ../shared/tools/peers/textdoc-server);
#                 it is npm-installed into a temporary copy, never into the repo
#   GOPLS         a gopls binary (e.g. /tmp/gobin/gopls from
#                 `GOBIN=/tmp/gobin go install golang.org/x/tools/gopls@v0.23.0`); skipped if unset/missing
#   OUT           where results go (default: .artifacts/bench-lsp)
#   RUNS N        interleaved runs per server and changes per run
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
shared="$(cd "$root/.." && pwd)/shared"
LSPDRIVE_SRC="${LSPDRIVE_SRC:-$shared/tools/lspdrive}"
PEER_SRC="${PEER_SRC:-$shared/tools/peers/textdoc-server}"
OUT="${OUT:-$root/.artifacts/bench-lsp}"
if [ -n "${QUICK:-}" ]; then RUNS="${RUNS:-1}"; N="${N:-300}"; STARTS="${STARTS:-5}"; else RUNS="${RUNS:-3}"; N="${N:-2000}"; STARTS="${STARTS:-21}"; fi
GOPLS_N="${GOPLS_N:-40}" # gopls type-checks on every change (about 1 s at 10 MB): fewer changes

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$OUT"

echo "building cb-ls and lspdrive" >&2
go build -C "$root" -o "$tmp/cb-ls" ./cmd/cb-ls
go build -C "$LSPDRIVE_SRC" -o "$tmp/lspdrive" .
drive="$tmp/lspdrive"

servers=(-server "cb-ls=$tmp/cb-ls serve")
peers=()
if [ -d "$PEER_SRC" ] && command -v npm >/dev/null; then
  cp -r "$PEER_SRC" "$tmp/textdoc-server"
  (cd "$tmp/textdoc-server" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  peers+=(-server "textdoc=node $tmp/textdoc-server/server.js --stdio")
else
  echo "textdoc-server peer skipped: $PEER_SRC or npm missing" >&2
fi
gopls=()
if [ -n "${GOPLS:-}" ] && [ -x "$GOPLS" ]; then
  gopls=(-server "gopls=$GOPLS")
else
  echo "gopls peer skipped: set GOPLS to a gopls v0.23.0 binary" >&2
fi

# Typing: one-character incremental didChanges at scattered positions into a
# generated Go document, each followed by an ordering probe request.
for size in 1MB 10MB; do
  echo "typing into $size" >&2
  "$drive" -summary -lang go -size "$size" -n "$N" -pos scattered -runs "$RUNS" \
    "${servers[@]}" "${peers[@]}" >"$OUT/typing-$size.json"
  if [ ${#gopls[@]} -gt 0 ]; then
    "$drive" -summary -lang go -size "$size" -n "$GOPLS_N" -pos scattered -runs 1 \
      "${servers[@]}" "${gopls[@]}" >"$OUT/typing-$size-gopls.json"
  fi
done

# Start-up: process start to the initialize answer, a tiny document, no
# settling and no waiting for diagnostics.
echo "start-up" >&2
"$drive" -lang go -size 1KB -n 1 -settle=false -diag-wait 0 -runs "$STARTS" \
  "${servers[@]}" "${peers[@]}" "${gopls[@]}" >"$OUT/startup.json"

# Memory: 1,000 open documents of 100 KB each (the full binary's RSS).
echo "1,000 open documents" >&2
node "$root/bench/lsp/manydocs.js" --docs 1000 --size 102400 -- "$tmp/cb-ls" serve >"$OUT/manydocs-cb-ls.json"
if [ -d "$tmp/textdoc-server" ]; then
  node "$root/bench/lsp/manydocs.js" --docs 1000 --size 102400 -- node "$tmp/textdoc-server/server.js" --stdio >"$OUT/manydocs-textdoc.json"
fi

node "$root/bench/lsp/summarize.js" "$OUT" | tee "$OUT/summary.md"
