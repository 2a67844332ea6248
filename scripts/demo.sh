#!/usr/bin/env bash
# THE main-job command (README "Quick start"): builds the bitplane program in build/release
# (only the `bitplane_cli` target and what it needs) and runs `bitplane demo`, which leaves
# its files in build/demo/. Arguments are passed to the demo (`bash scripts/demo.sh --help`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs="${BITPLANE_JOBS:-$(nproc)}"

bash scripts/install-deps.sh
cmake --preset release
cmake --build build/release -j "$jobs" --target bitplane_cli
echo
exec build/release/tools/bitplane demo --dir build/demo "$@"
