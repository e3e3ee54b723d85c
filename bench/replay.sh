#!/bin/sh
# bench/replay.sh — what recorded tasks cost in request bytes. Each task
# of bench/replay/*.json is a project (a module@version from the Go
# module proxy), the user's instruction and the model's tool calls,
# turn by turn. A scripted model (internal/agent/agenttest) sends those
# calls to `cb-ls run --yes` (Anthropic's wire format, whose results
# say is_error) in a fresh copy of the project, made a git checkout of
# one commit (the model ran git status and git diff), with gopls behind
# the language tools when the task calls one, and records
# every request; the bytes of the request bodies (system prompt, tool
# definitions and the whole history, resent every turn) are summed per
# task, and every tool result that is an error is named. "history" is
# what the turns added: the total less the first request's size (system
# prompt, tool definitions, instruction) times the number of requests.
#
#   bench/replay.sh            # this tree only
#   bench/replay.sh 355945c    # and that commit, built in a temporary worktree
#   TASKS=DIR bench/replay.sh  # the recordings of DIR (*.json) instead of bench/replay/
#   KEEP=1 bench/replay.sh     # keep the work directories (run.log, last-request.json, the edited trees)
#
# "median" is the median request's bytes: what a turn costs halfway
# through the task.
#
# The figures do not depend on the machine's speed, only on what the
# tools answer; exec's answers (test timings) vary by a few bytes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
before=${1:-}
tasks=$(cd "${TASKS:-$root/bench/replay}" && pwd)
tmp=$(mktemp -d)
cleanup() {
	if [ "${KEEP:-}" = 1 ]; then
		echo "kept $tmp" >&2
		return
	fi
	if [ -n "$before" ] && [ -d "$tmp/before-src" ]; then
		git -C "$root" worktree remove --force "$tmp/before-src" >/dev/null 2>&1 || true
	fi
	chmod -R u+w "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

cd "$root"
go build -o "$tmp/replay" ./internal/bench/replay
go build -o "$tmp/after/cb-ls" ./cmd/cb-ls
builds="after"
if [ -n "$before" ]; then
	git -C "$root" worktree add --detach "$tmp/before-src" "$before" >/dev/null 2>&1
	(cd "$tmp/before-src" && go build -o "$tmp/before/cb-ls" ./cmd/cb-ls)
	builds="before after"
fi

# Commands run with no network: the projects' dependencies come from the
# module cache, fetched here with the go command. Their build cache is
# exec's own (under XDG_CACHE_HOME, which every run shares), read-only
# inside the sandbox: it is filled here, so that a test command takes
# the same seconds in every run and no run times out compiling.
GOMODCACHE=$(go env GOMODCACHE)
XDG_CACHE_HOME="$tmp/cache"
export GOMODCACHE XDG_CACHE_HOME GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
for task in "$tasks"/*.json; do
	module=$(sed -n 's/^ *"module": "\(.*\)",*$/\1/p' "$task")
	dir=$(GOPROXY= GOFLAGS= go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	(cd "$dir" && GOPROXY= GOFLAGS=-mod=mod go mod download) >/dev/null 2>&1 || true
	(cd "$dir" && GOCACHE="$XDG_CACHE_HOME/catbuddy-exec/go-build" go test -count=1 -run '^$' ./... && GOCACHE="$XDG_CACHE_HOME/catbuddy-exec/go-build" go vet ./...) >/dev/null 2>&1 || true
	name=$(basename "$task" .json)
	for b in $builds; do
		mkdir -p "$tmp/work/$b/$name"
		"$tmp/replay" -cb-ls "$tmp/$b/cb-ls" -task "$task" -project "$dir" -work "$tmp/work/$b/$name" >>"$tmp/$b.jsonl"
	done
done

# One line per task and build, then the totals and the ratio.
for b in $builds; do
	sed "s/^/$b /" "$tmp/$b.jsonl"
done | awk '
{
	b = $1
	match($0, /"task":"[^"]*"/); task = substr($0, RSTART + 8, RLENGTH - 9)
	match($0, /"bytes":[0-9]+/); bytes = substr($0, RSTART + 8, RLENGTH - 8)
	match($0, /"requests":[0-9]+/); reqs = substr($0, RSTART + 11, RLENGTH - 11)
	match($0, /"first":[0-9]+/); first = substr($0, RSTART + 8, RLENGTH - 8)
	match($0, /"median":[0-9]+/); median = substr($0, RSTART + 9, RLENGTH - 9)
	match($0, /"calls":[0-9]+/); calls = substr($0, RSTART + 8, RLENGTH - 8)
	match($0, /"answered":[0-9]+/); ans = substr($0, RSTART + 11, RLENGTH - 11)
	errs = ($0 ~ /"errors":\[\]/) ? 0 : 1
	printf "%-7s %-22s %3d requests %8d bytes (median %6d, history %7d)  %2d/%2d calls answered%s\n", b, task, reqs, bytes, median, bytes - reqs * first, ans, calls, errs ? "  ERRORS: " substr($0, index($0, "\"errors\"")) : ""
	total[b] += bytes
	hist[b] += bytes - reqs * first
	if (ans != calls || errs) bad = 1
}
END {
	for (b in total) printf "%-7s total %d bytes, of which history %d\n", b, total[b], hist[b]
	if (("before" in total) && total["before"] > 0) {
		printf "after/before: %.3f (%.1f%% fewer request bytes)\n", total["after"] / total["before"], 100 * (1 - total["after"] / total["before"])
		printf "history after/before: %.3f (%.1f%% fewer bytes beyond the fixed prompt and the instruction)\n", hist["after"] / hist["before"], 100 * (1 - hist["after"] / hist["before"])
	}
	if (bad) { print "FAIL: a tool call was not answered, or failed"; exit 1 }
}'
