#!/usr/bin/env bash
# Installs the Debian packages that building and testing bitplane needs, only those missing.
# Idempotent: when everything is present it changes nothing and does not touch the network.
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail

packages=(cmake g++ clang libclang-rt-14-dev libgtest-dev libbenchmark-dev libxsimd-dev libxxhash-dev
          libtbb-dev libroaring-dev libopenblas-dev
          libcli11-dev nlohmann-json3-dev zlib1g-dev libzstd-dev gnuplot-nox python3)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present (${packages[*]}); nothing to do"
  exit 0
fi

apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: missing ${missing[*]}, and not root and no sudo to install them" >&2
    exit 1
  fi
  apt=(sudo "${apt[@]}")
fi

echo "install-deps: missing ${missing[*]}: running apt-get update and install"
"${apt[@]}" update -q
"${apt[@]}" install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
