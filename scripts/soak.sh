#!/usr/bin/env bash
# soak.sh — hunt flaky tests: run the whole Go suite (race detector,
# CB_LS_REQUIRE_TOOLS=1, nothing cached) GO_RUNS times in a row while
# `stress-ng --cpu 2` loads the machine, then the Neovim and VS Code
# suites EDITOR_RUNS times each (also under the load). Every run's pass or
# fail, duration and load average go to the log; a failed run's output is
# kept beside it. Not part of `make test`: it takes hours.
#
#   bash scripts/soak.sh [GO_RUNS] [EDITOR_RUNS]      defaults: 10 5
#   SOAK_LOG=…  the log (default .artifacts/soak/soak.log)
#   SOAK_STRESS=0  no stress-ng beside the runs
#   SOAK_SUITES="go neovim vscode"  which suites to run
set -uo pipefail
cd "$(dirname "$0")/.."
GO_RUNS=${1:-10}
EDITOR_RUNS=${2:-5}
SUITES=${SOAK_SUITES:-go neovim vscode}
ART=$(pwd)/.artifacts/soak
LOG=${SOAK_LOG:-$ART/soak.log}
mkdir -p "$ART" "$(dirname "$LOG")"

stress_pid=
if [ "${SOAK_STRESS:-1}" != 0 ]; then
  if ! command -v stress-ng >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null &&
      apt-get -o DPkg::Lock::Timeout=600 install -y -qq stress-ng >/dev/null ||
      { echo "soak: stress-ng is needed (apt-get install stress-ng), or SOAK_STRESS=0" >&2; exit 1; }
  fi
  stress-ng --cpu 2 --quiet &
  stress_pid=$!
  trap 'kill "$stress_pid" 2>/dev/null; wait "$stress_pid" 2>/dev/null' EXIT
fi

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
say() { echo "$(date -u +%FT%TZ) $*" | tee -a "$LOG"; }

# soak NAME RUNS CMD…: runs CMD RUNS times, logging each run.
pass=0 fail=0
soak() {
  local name=$1 runs=$2 i start secs out
  shift 2
  for i in $(seq "$runs"); do
    out="$ART/$name-$i.out"
    say "$name run $i/$runs: start, load $(loadavg)"
    start=$(date +%s)
    if "$@" >"$out" 2>&1; then
      secs=$(($(date +%s) - start))
      say "$name run $i/$runs: PASS in ${secs}s, load $(loadavg)"
      pass=$((pass + 1))
      rm -f "$out"
    else
      secs=$(($(date +%s) - start))
      say "$name run $i/$runs: FAIL in ${secs}s, load $(loadavg); output: $out"
      grep -E '^(--- FAIL|FAIL|not ok|panic:)' "$out" | head -20 | sed 's/^/    /' | tee -a "$LOG"
      # The next run starts its suite's artifacts afresh: keep this
      # run's (logs, screenshots, the editor's own logs), without the
      # rest of the editor's profile.
      if [ -d ".artifacts/$name" ]; then
        rm -rf "$ART/$name-$i.artifacts"
        cp -r ".artifacts/$name" "$ART/$name-$i.artifacts"
        find "$ART/$name-$i.artifacts/run/ud" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf {} + 2>/dev/null
        rm -rf "$ART/$name-$i.artifacts/run/exts"
        say "$name run $i/$runs: its artifacts: $ART/$name-$i.artifacts"
      fi
      fail=$((fail + 1))
    fi
  done
}

stress=none
[ -n "$stress_pid" ] && stress="--cpu 2"
say "soak: $GO_RUNS Go runs, $EDITOR_RUNS per editor suite, suites: $SUITES, stress-ng: $stress, $(nproc) CPUs, commit $(git rev-parse --short HEAD 2>/dev/null)"
for suite in $SUITES; do
  case $suite in
  go)
    # The language tools' tests drive gopls, pyright and the TypeScript
    # server (as scripts/test-go.sh does).
    PATH="$(bash scripts/get-gopls.sh):$(bash scripts/get-node-language-servers.sh):$PATH" soak go "$GO_RUNS" env CB_LS_REQUIRE_TOOLS=1 go test -race -count=1 ./...
    ;;
  neovim) soak neovim "$EDITOR_RUNS" bash scripts/test-neovim.sh ;;
  vscode) soak vscode "$EDITOR_RUNS" bash scripts/test-vscode.sh ;;
  *) echo "soak: unknown suite $suite" >&2; exit 2 ;;
  esac
done
say "soak: $pass passed, $fail failed"
[ "$fail" = 0 ]
