#!/usr/bin/env bash
# get-emacs.sh DEST [SUITE] — a current Emacs for the eglot tests, unpacked
# (not installed) from Debian's own packages of SUITE (default trixie, which
# has Emacs 30 with eglot built in). Debian bookworm's apt gives Emacs 28,
# whose eglot is the elpa-eglot package; the tests want both.
#
# As scripts/get-nvim.sh does for Neovim: apt runs with private package
# lists under DEST (no root, the machine's apt untouched), and DEST/emacs
# runs the suite's emacs-nox on the suite's own dynamic loader and
# libraries, unpacked into DEST/root. Emacs's libraries have libraries of
# their own (GnuTLS, libgccjit's compiler), so the library packages they
# depend on are taken transitively; development packages are not.
# DEST/emacs points Emacs at its unpacked Lisp, data and dump file.
set -euo pipefail
dest=$(realpath -m "${1:?usage: get-emacs.sh DEST [SUITE]}")
suite=${2:-trixie}
. "$(dirname "$0")/debian-suite.sh"

# depends prints the direct dependencies of the packages named, one a line,
# alternatives reduced to the first.
depends() {
  apt-cache "${apt_opts[@]}" depends --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "$@" 2>/dev/null |
    sed -n 's/^ *|\{0,1\}\(Pre\)\{0,1\}Depends: \([^ <]*\).*/\2/p' | sed 's/:any$//'
}

# The library closure of emacs-nox: every lib* package reached through
# lib* packages, without -dev, -bin or -data ones (not loaded at run time).
declare -A seen=()
todo=(emacs-nox)
libs=()
while [ "${#todo[@]}" -gt 0 ]; do
  next=()
  while read -r p; do
    case "$p" in
      lib*-dev | lib*-bin | lib*-data | lib*-common) continue ;;
      lib*) ;;
      *) continue ;;
    esac
    [ -n "${seen[$p]:-}" ] && continue
    seen[$p]=1
    libs+=("$p")
    next+=("$p/$suite")
  done < <(depends "${todo[@]/%//$suite}" | sort -u)
  todo=()
  for n in "${next[@]}"; do todo+=("${n%/"$suite"}"); done
done

pkgs=("emacs-nox/$suite" "emacs-bin-common/$suite" "emacs-common/$suite")
for l in "${libs[@]}"; do pkgs+=("$l/$suite"); done
(cd "$dest/debs" && rm -f ./*.deb && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}")
rm -rf "$dest/root"
for deb in "$dest"/debs/*.deb; do dpkg-deb -x "$deb" "$dest/root"; done

root="$dest/root"
[ -x "$root/usr/bin/emacs-nox" ] || { echo "get-emacs.sh: no usr/bin/emacs-nox in the $suite packages" >&2; exit 1; }
loader=$(ls "$root"/usr/lib/*-linux-gnu/ld-linux*.so.* 2>/dev/null | head -1)
[ -n "$loader" ] || { echo "get-emacs.sh: no dynamic loader in $suite's libc6" >&2; exit 1; }
lib=$(dirname "$loader")
version=$(ls "$root/usr/share/emacs" | grep -E '^[0-9]+\.[0-9]+' | head -1)
arch=$(basename "$lib")
dump=$(ls "$root/usr/libexec/emacs/$version/$arch/"*.pdmp 2>/dev/null | head -1)
[ -n "$dump" ] || { echo "get-emacs.sh: no dump file for Emacs $version" >&2; exit 1; }
cat >"$dest/emacs" <<EOF
#!/bin/sh
# Emacs $version from Debian $suite, run on that suite's loader and libraries (scripts/get-emacs.sh).
export EMACSDATA='$root/usr/share/emacs/$version/etc' EMACSDOC='$root/usr/share/emacs/$version/etc'
export EMACSPATH='$root/usr/libexec/emacs/$version/$arch' EMACSLOADPATH='$root/usr/share/emacs/$version/lisp'
exec '$loader' --library-path '$lib' '$root/usr/bin/emacs-nox' --dump-file='$dump' "\$@"
EOF
chmod +x "$dest/emacs"
rm -rf "$dest/debs" "$state/cache"
"$dest/emacs" --version | head -1
