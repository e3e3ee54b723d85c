#!/usr/bin/env bash
# get-nvim.sh DEST [SUITE] — a newer Neovim for the headless tests, unpacked
# (not installed) from Debian's own packages of SUITE (default trixie, which
# has Neovim 0.10). Debian bookworm's apt gives 0.7.2; the tests want both.
#
# apt runs with private package lists under DEST, so the machine's apt setup is
# untouched and no root is needed. The suite's neovim, the packages it depends
# on directly and the suite's libc are unpacked into DEST/root, and DEST/nvim
# runs that Neovim on the suite's own dynamic loader: bookworm's glibc is too
# old for trixie's binaries. Programs that nvim starts (cb-ls) still use the
# system's libraries, because only the loader's library path is changed.
# Inside that nvim, v:progpath is the loader: start child nvims through DEST/nvim.
set -euo pipefail
dest=$(realpath -m "${1:?usage: get-nvim.sh DEST [SUITE]}")
suite=${2:-trixie}
. "$(dirname "$0")/debian-suite.sh"

# The direct dependencies of the suite's neovim, alternatives reduced to the
# first, version constraints dropped.
mapfile -t deps < <(apt-cache "${apt_opts[@]}" show "neovim/$suite" |
  sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' |
  sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' | grep -v '^$')
pkgs=("neovim/$suite" "libc6/$suite" "libgcc-s1/$suite" "libluajit-5.1-common/$suite")
for d in "${deps[@]}"; do pkgs+=("$d/$suite"); done

(cd "$dest/debs" && rm -f ./*.deb && apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}")
rm -rf "$dest/root"
for deb in "$dest"/debs/*.deb; do dpkg-deb -x "$deb" "$dest/root"; done

root="$dest/root"
[ -x "$root/usr/bin/nvim" ] || { echo "get-nvim.sh: no usr/bin/nvim in the $suite packages" >&2; exit 1; }
loader=$(ls "$root"/usr/lib/*-linux-gnu/ld-linux*.so.* 2>/dev/null | head -1)
[ -n "$loader" ] || { echo "get-nvim.sh: no dynamic loader in $suite's libc6" >&2; exit 1; }
lib=$(dirname "$loader")
cat >"$dest/nvim" <<EOF
#!/bin/sh
# Neovim from Debian $suite, run on that suite's loader and libraries (scripts/get-nvim.sh).
export VIM='$root/usr/share/nvim' VIMRUNTIME='$root/usr/share/nvim/runtime'
exec '$loader' --library-path '$lib' '$root/usr/bin/nvim' "\$@"
EOF
chmod +x "$dest/nvim"
rm -rf "$dest/debs" "$state/cache"
"$dest/nvim" --version | head -1
