#!/usr/bin/env bash
# THE main-job command (README "Quick start"): builds the demo in build/release (only the
# `bitplane_demo` target and what it needs) and runs it. Arguments are passed to the demo
# (`bash scripts/demo.sh --help`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs="${BITPLANE_JOBS:-$(nproc)}"

bash scripts/install-deps.sh
cmake --preset release
cmake --build build/release -j "$jobs" --target bitplane_demo
echo
exec build/release/examples/bitplane_demo "$@"
