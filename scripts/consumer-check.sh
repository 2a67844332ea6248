#!/usr/bin/env bash
# Installs a bitplane build into PREFIX/install and builds and runs tests/consumer against it
# with find_package(bitplane), as a user would, with Boost out of sight: the installed headers
# must not need it (issue #22). Boost's headers are hidden by an empty tmpfs over their folder,
# in a mount namespace of this command alone (unshare; root on CI and dev machines).
#   bash scripts/consumer-check.sh BUILD_DIR PREFIX
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="$1"
prefix="$2"
jobs="${BITPLANE_JOBS:-$(nproc)}"
cmake --install "$build" --prefix "$prefix/install"
if grep -rlE '#include *<boost/' "$prefix/install/include" >/dev/null 2>&1; then
  echo "consumer-check: installed headers include Boost:" >&2
  grep -rlE '#include *<boost/' "$prefix/install/include" >&2
  exit 1
fi
build_and_run=$(cat <<SCRIPT
set -euo pipefail
if [[ -d /usr/include/boost ]]; then mount -t tmpfs -o size=1m,ro bitplane-no-boost /usr/include/boost; fi
cmake -S tests/consumer -B "$prefix/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix/install"
cmake --build "$prefix/build" -j "$jobs"
"$prefix/build/bitplane_consumer"
SCRIPT
)
if [[ -d /usr/include/boost ]]; then
  unshare --mount bash -c "$build_and_run"
else
  bash -c "$build_and_run"
fi
echo "consumer-check: $build installed and used through find_package, without Boost: OK"
