# Sourced by the scripts that take test and benchmark data from Debian packages
# (fetch-genomes.sh, fetch-corpus.sh): one way to get a package's files without installing it.
#
# extract_debian_package NAME PACKAGE WORK
#   Downloads PACKAGE (`apt-get download`, updating the package lists once if it is unknown and
#   we are root) into WORK and unpacks it with `dpkg -x` into WORK/PACKAGE; the .deb is removed.
#   Returns 1, after a message that starts with NAME, when the package cannot be had (offline,
#   or not in this distribution).
extract_debian_package() {
  local name=$1 package=$2 work=$3
  if ! apt-cache show "$package" >/dev/null 2>&1; then
    if [[ "$(id -u)" -eq 0 ]]; then apt-get update -q >/dev/null 2>&1 || true; fi
  fi
  if ! (cd "$work" && apt-get download -q "$package" >/dev/null 2>&1); then
    echo "$name: cannot download $package (offline, or not in this distribution)" >&2
    return 1
  fi
  local deb
  deb=$(ls "$work"/"${package}"_*.deb 2>/dev/null | head -n1)
  mkdir -p "$work/$package"
  dpkg -x "$deb" "$work/$package"
  rm -f "$deb"
}
