#!/usr/bin/env bash
# eglot end-to-end tests: real cb-ls, a scripted model server, and the
# README's elisp as written, in real Emacs on a pseudo-terminal (eglot sends
# didChange from idle timers, which never fire in --batch): Debian's Emacs
# 28 with elpa-eglot, and Emacs 30 with its built-in eglot, unpacked from
# Debian trixie (scripts/get-emacs.sh). Installs what it needs, once.
# CB_LS_EMACS=28 (or 30) runs one of the two only.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
cache="$repo/.cache/emacs"
mkdir -p "$cache/bin"

# Emacs 28 and eglot 1.9 from apt (waits for other apt users instead of failing).
eglot19=(/usr/share/emacs/site-lisp/elpa/eglot-*)
if ! command -v emacs >/dev/null || [ ! -d "${eglot19[0]}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends emacs-nox elpa-eglot >/dev/null
fi
command -v script >/dev/null || { echo "test-emacs: script(1) (util-linux) is needed for the pseudo-terminal" >&2; exit 1; }

# Emacs 30 from Debian trixie, unpacked into the test cache (not
# installed). EMACS_30 names another Emacs 30 binary.
. scripts/test-cache.sh
emacs30=${EMACS_30:-$test_cache/emacs-30/emacs}
only=${CB_LS_EMACS:-}
case "$only" in ""|28|30) ;; *) echo "test-emacs: CB_LS_EMACS is 28 or 30, not $only" >&2; exit 2 ;; esac
if [ "$only" != 28 ] && [ ! -x "$emacs30" ]; then
  echo "test-emacs: fetching Emacs 30 into $test_cache/emacs-30"
  cached emacs-30 sh -c '[ -x "$1/emacs" ] || bash scripts/get-emacs.sh "$1" trixie >/dev/null' _ "$test_cache/emacs-30"
fi

go build -o "$cache/bin/cb-ls" ./cmd/cb-ls
go build -o "$cache/bin/scriptmodel" ./internal/agent/agenttest/cmd/scriptmodel

passed=0
failed=0
# Emacs 28 loads Debian's elpa-eglot through its package activation (-q
# keeps site files); Emacs 30 runs with -Q, so that bookworm's eglot 1.9
# in /usr/share/emacs/site-lisp does not shadow its own.
specs=()
[ "$only" = 30 ] || specs+=("$(command -v emacs) -q")
[ "$only" = 28 ] || specs+=("$emacs30 -Q")
for spec in "${specs[@]}"; do
  read -r bin flag <<<"$spec"
  version=$("$bin" --version | head -1)
  start=$(date +%s)
  echo "== $version"
  work=$(mktemp -d)
  mkdir -p "$work/project" "$work/home" "$work/config/catbuddy"
  # The user's config: a one-second question bound, for the C-g case.
  echo '{"questionTimeout": 1}' >"$work/config/catbuddy/config.json"
  log="$work/e2e.log"
  : >"$log"
  # script's input is a FIFO opened read-write: it never ends and never
  # sends a byte. At an end of input the terminal would read as input
  # pending for ever, and Emacs would never idle.
  mkfifo "$work/input"
  set +e
  (
    cd "$work/project"
    HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" \
      PATH="$cache/bin:$PATH" TERM=xterm CB_LS_README="$repo/README.md" E2E_DIR="$work/project" E2E_LOG="$log" \
      SCRIPTMODEL="$cache/bin/scriptmodel" \
      timeout 120 script -qfec "$bin -nw $flag -l $repo/test/eglot/e2e.el" /dev/null >/dev/null 0<>"$work/input"
  )
  rc=$?
  set -e
  cat "$log"
  echo "($version: $(($(date +%s) - start)) s)"
  summary=$(grep -E '^eglot: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1 || true)
  if [ -n "$summary" ]; then
    p=$(echo "$summary" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  else
    p=0; f=1
    echo "test-emacs: $version ended without a summary (exit $rc)"
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  rm -rf "$work"
done
echo "emacs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
