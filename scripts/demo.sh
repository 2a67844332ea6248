#!/usr/bin/env bash
# THE main-job command (README "Quick start"): builds the bitplane program in build/release
# (only the `bitplane_cli` target and what it needs) and runs `bitplane demo`, which leaves
# its files in build/demo/. Arguments are passed to the demo (`bash scripts/demo.sh --help`).
# Its genome is built into the program (lambda phage, 48 kb), so it needs no download. A larger
# one is an argument away, e.g. E. coli from scripts/fetch-genomes.sh:
#   bash scripts/demo.sh --genome build/genomes/ecoli_k12_mg1655.fa.gz
# It is not the default: gzip -9, zstd -19 and the modeled pack of its 4.7 MB add about 12 s to a
# demo of about 8 s on the 2-core VM.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs="${BITPLANE_JOBS:-$(nproc)}"

bash scripts/install-deps.sh
cmake --preset release
cmake --build build/release -j "$jobs" --target bitplane_cli
echo
exec build/release/tools/bitplane demo --dir build/demo "$@"
