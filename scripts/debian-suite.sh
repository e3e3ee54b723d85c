# debian-suite.sh — sourced by get-nvim.sh and get-emacs.sh: private apt
# package lists for another Debian suite under $dest, so packages of that
# suite can be downloaded and unpacked without root and without touching
# the machine's apt setup. Needs $dest and $suite; sets apt_opts (pass it
# to apt-get and apt-cache) and runs apt-get update.

# mirror prints the Debian mirror this machine's apt already uses.
mirror() {
  local m
  m=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n' | grep -v -e security -e '^$' | head -1 || true)
  if [ -z "$m" ]; then
    m=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
  fi
  echo "${m:-http://deb.debian.org/debian}"
}

state="$dest/apt"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$dest/debs"
echo "deb $(mirror) $suite main" >"$state/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$state/sources.list"
  -o "Dir::Etc::SourceParts=/nonexistent"
  -o "Dir::State::Lists=$state/lists"
  -o "Dir::Cache=$state/cache"
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
)
apt-get "${apt_opts[@]}" -qq update
