#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + coverage) in build/fuzz, writes seed
# corpora of every data shape, and runs each target for BITPLANE_FUZZ_SECONDS (default 60),
# BITPLANE_JOBS targets at a time.
# Exits non-zero on any finding (the crashing input is left in build/fuzz/findings/).
#   BITPLANE_FUZZ_TARGETS="a b"  run only these targets (default: every tests/fuzz/fuzz_*.cpp)
#   BITPLANE_FUZZ_SECONDS=N   time per target
#   BITPLANE_FUZZ_RUNS=N      stop each target after N executions instead (0 = time only)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${BITPLANE_FUZZ_SECONDS:-60}"
runs="${BITPLANE_FUZZ_RUNS:-0}"
jobs="${BITPLANE_JOBS:-$(nproc)}"
bash scripts/install-deps.sh

# BITPLANE_FUZZ_BUILD=DIR: the targets of a build already configured with clang and
# -DBITPLANE_FUZZ=ON (scripts/test.sh's sanitizer build is one: a second ASan build of the
# whole library cost CI several minutes); else build/fuzz, configured here.
build="${BITPLANE_FUZZ_BUILD:-build/fuzz}"
if [[ -z "${BITPLANE_FUZZ_BUILD:-}" ]]; then
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DBITPLANE_FUZZ=ON -DBITPLANE_CUDA=OFF -DBITPLANE_BUILD_TESTS=OFF -DBITPLANE_BUILD_BENCHMARKS=OFF \
    -DBITPLANE_BUILD_TOOLS=OFF >/dev/null
elif ! grep -q '^BITPLANE_FUZZ:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz.sh: $build is not a build configured with -DBITPLANE_FUZZ=ON" >&2
  exit 2
fi
cmake --build "$build" -j "$jobs" --target bitplane_fuzz_all

out=build/fuzz
corpus=$out/corpus
mkdir -p "$out"
rm -rf "$corpus" "$out/findings"
mkdir -p "$out/findings"
"$build/tests/fuzz/bitplane_fuzz_make_corpus" "$corpus"
# Checked-in seeds (real files, earlier findings) join the generated ones.
shopt -s nullglob
if [[ -d tests/fuzz/corpus ]]; then
  for dir in tests/fuzz/corpus/*/; do
    mkdir -p "$corpus/$(basename "$dir")"
    cp -r "$dir". "$corpus/$(basename "$dir")/"
  done
fi

# Every target: build/fuzz/tests/fuzz/bitplane_fuzz_<name> (make_corpus is not one).
targets=()
for binary in "$build"/tests/fuzz/bitplane_fuzz_*; do
  name="${binary##*/bitplane_fuzz_}"
  [[ "$name" == make_corpus ]] && continue
  targets+=("$name")
done
if [[ -n "${BITPLANE_FUZZ_TARGETS:-}" ]]; then read -r -a targets <<<"$BITPLANE_FUZZ_TARGETS"; fi

# Targets run side by side, BITPLANE_JOBS of them at a time (default: nproc): each is one
# process on one core, so CI's two cores fuzz twice as long in the same wall time.
run_target() {
  local target=$1
  mkdir -p "$corpus/$target"
  local args=(-max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10
              -artifact_prefix="build/fuzz/findings/${target}-" -print_final_stats=1)
  if [[ "$runs" != "0" ]]; then args+=(-runs="$runs"); fi
  if ! "$build/tests/fuzz/bitplane_fuzz_$target" "${args[@]}" "$corpus/$target" 2>build/fuzz/$target.log; then
    touch "build/fuzz/$target.failed"
  fi
}

rm -f build/fuzz/*.failed
echo "=== fuzz.sh: ${#targets[@]} targets, ${seconds} s each, $jobs at a time ==="
for target in "${targets[@]}"; do
  while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
  echo "=== fuzz.sh: $target started ==="
  run_target "$target" &
done
wait

status=0
for target in "${targets[@]}"; do
  echo "=== fuzz.sh: $target ==="
  if [[ -e "build/fuzz/$target.failed" ]]; then
    status=1
    tail -40 "build/fuzz/$target.log"
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build/fuzz/$target.log" || true
done
if ((status == 0)); then echo "=== fuzz.sh: no findings ==="; else echo "=== fuzz.sh: FINDINGS ===" >&2; fi
exit "$status"
