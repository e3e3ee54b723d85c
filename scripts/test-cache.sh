# test-cache.sh — sourced by the test scripts: where the heavy installs the
# editor tests need (Neovim 0.10, code-server, Chromium's driver) live. They
# are kept outside the clone so that every clone on a machine shares them and
# a second run starts at once. CB_LS_TEST_CACHE overrides the place.
test_cache=${CB_LS_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cb-ls-tests}
mkdir -p "$test_cache"

# cached NAME CMD... runs CMD (an installer) under a lock on NAME, so two test
# runs on one machine never install into the same place at once.
cached() {
  local name=$1
  shift
  (
    flock 9
    "$@"
  ) 9>"$test_cache/$name.lock"
}
