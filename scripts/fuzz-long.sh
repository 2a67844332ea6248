#!/usr/bin/env bash
# Long libFuzzer runs from prebuilt binaries, for a machine with many cores and no compiler
# (docs/fuzzing.md, "Long runs"). Two steps:
#
#   bash scripts/fuzz-long.sh build
#       here (clang): builds the targets as scripts/fuzz.sh does (-fsanitize=fuzzer,address,
#       undefined, RelWithDebInfo, build folder build/fuzz), copies them without their debug
#       info into .fuzz-bin/ (git-ignored) with the seed corpora (make_corpus plus
#       tests/fuzz/corpus/) in .fuzz-bin/seeds/<target>/ and the shared libraries they need
#       beyond the C and C++ runtime (zlib, oneTBB) in .fuzz-bin/lib/, and checks with ldd
#       that nothing else is needed.
#
#   OUT=DIR BITPLANE_FUZZ_PROCS=P BITPLANE_FUZZ_RUNS=N bash scripts/fuzz-long.sh run
#       there: runs P processes of each target side by side (all targets at once), sharing one
#       corpus folder per target (libFuzzer reloads it every second, so each process fuzzes
#       what the others found), each until N executions (-runs) or BITPLANE_FUZZ_SECONDS,
#       whichever comes first. Then writes DIR/summary.txt: per target the executions of all
#       processes, exec/s (all processes, and per process), peak RSS, edges and features of
#       the final corpus (one replay of it) and findings. Also in DIR: the processes' logs
#       (logs/), any crashing input (findings/), the final corpora (corpus.tar.gz).
#       Exits non-zero on any finding.
#
# Settings (run):
#   BITPLANE_FUZZ_TARGETS  targets (default: "dna_modeled load_dna")
#   BITPLANE_FUZZ_PROCS    processes per target (default: cores / number of targets)
#   BITPLANE_FUZZ_RUNS     executions per process (default 0: time only)
#   BITPLANE_FUZZ_SECONDS  wall time per process (default 330)
#   BITPLANE_FUZZ_BIN      binaries and seeds (default .fuzz-bin)
#   BITPLANE_FUZZ_WORK     working folder for the corpora (default: a new folder in /tmp)
#   OUT                    results (default build/fuzz-long)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin_dir="${BITPLANE_FUZZ_BIN:-.fuzz-bin}"
read -r -a targets <<<"${BITPLANE_FUZZ_TARGETS:-dna_modeled load_dna}"

runtime='linux-vdso|ld-linux|lib(c|m|stdc\+\+|gcc_s|pthread|dl|rt)\.so'
# The binaries link zlib and oneTBB besides the C and C++ runtime: the build step copies those
# into $bin_dir/lib, and the run step puts that folder first on LD_LIBRARY_PATH.
ship_libraries() {
  mkdir -p "$bin_dir/lib"
  ldd "$@" | grep -v -E "$runtime" | awk '/=> \// {print $3}' | sort -u | while read -r library; do
    cp -L "$library" "$bin_dir/lib/"
  done
}
check_linkage() {  # every library found; none but the runtime's from outside $bin_dir/lib
  local status=0 binary
  for binary in "$@"; do
    if LD_LIBRARY_PATH="$bin_dir/lib" ldd "$binary" | grep -v -E "$runtime" | grep -v "=> $bin_dir/lib/" | grep -q .; then
      echo "fuzz-long.sh: $binary needs libraries that are neither the C/C++ runtime nor in $bin_dir/lib:" >&2
      LD_LIBRARY_PATH="$bin_dir/lib" ldd "$binary" >&2
      status=1
    fi
  done
  return "$status"
}

if [[ "${1:-}" == build ]]; then
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DBITPLANE_FUZZ=ON -DBITPLANE_CUDA=OFF -DBITPLANE_BUILD_TESTS=OFF -DBITPLANE_BUILD_BENCHMARKS=OFF \
    -DBITPLANE_BUILD_TOOLS=OFF >/dev/null
  build_targets=(bitplane_fuzz_make_corpus)
  for target in "${targets[@]}"; do build_targets+=("bitplane_fuzz_$target"); done
  cmake --build build/fuzz -j "${BITPLANE_JOBS:-$(nproc)}" --target "${build_targets[@]}"
  rm -rf "$bin_dir"
  mkdir -p "$bin_dir/seeds"
  build/fuzz/tests/fuzz/bitplane_fuzz_make_corpus "$bin_dir/generated" >/dev/null
  for target in "${targets[@]}"; do
    strip --strip-debug -o "$bin_dir/bitplane_fuzz_$target" "build/fuzz/tests/fuzz/bitplane_fuzz_$target"
    mkdir -p "$bin_dir/seeds/$target"
    if [[ -d "$bin_dir/generated/$target" ]]; then cp -r "$bin_dir/generated/$target/." "$bin_dir/seeds/$target/"; fi
    if [[ -d "tests/fuzz/corpus/$target" ]]; then cp -r "tests/fuzz/corpus/$target/." "$bin_dir/seeds/$target/"; fi
  done
  rm -rf "$bin_dir/generated"
  ship_libraries "$bin_dir"/bitplane_fuzz_*
  check_linkage "$bin_dir"/bitplane_fuzz_*
  ls "$bin_dir/lib"
  git rev-parse HEAD >"$bin_dir/COMMIT"
  du -sh "$bin_dir"
  exit 0
fi
if [[ "${1:-}" != run ]]; then
  echo "usage: scripts/fuzz-long.sh build | run (see the script's first lines)" >&2
  exit 2
fi

out="${OUT:-build/fuzz-long}"
cores="$(nproc)"
procs="${BITPLANE_FUZZ_PROCS:-$((cores / ${#targets[@]} > 0 ? cores / ${#targets[@]} : 1))}"
runs="${BITPLANE_FUZZ_RUNS:-0}"
seconds="${BITPLANE_FUZZ_SECONDS:-330}"
work="${BITPLANE_FUZZ_WORK:-$(mktemp -d /tmp/fuzz-long.XXXXXX)}"
mkdir -p "$out/logs" "$out/findings" "$work"
export LD_LIBRARY_PATH="$bin_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
check_linkage "$bin_dir"/bitplane_fuzz_*

{
  echo "fuzz-long.sh: $(date -u +%FT%TZ), $(cat "$bin_dir/COMMIT" 2>/dev/null || echo 'commit unknown')"
  echo "host: $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "targets: ${targets[*]}; $procs processes each; -runs=$runs -max_total_time=$seconds per process"
} | tee "$out/summary.txt"

start=$(date +%s)
pids=()
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target"
  mkdir -p "$corpus"
  cp -r "$bin_dir/seeds/$target/." "$corpus/"
  for ((i = 0; i < procs; ++i)); do
    args=(-max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
          -seed=$((1000 * i + 1)) -artifact_prefix="$out/findings/$target-")
    if [[ "$runs" != "0" ]]; then args+=(-runs="$runs"); fi
    "$bin_dir/bitplane_fuzz_$target" "${args[@]}" "$corpus" >"$out/logs/$target.$i.log" 2>&1 &
    pids+=($!)
  done
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
wall=$(($(date +%s) - start))

status=0
results="$out/results.part"
{
  echo "wall time: $wall s"
  printf '%-14s %14s %10s %12s %10s %8s %9s %6s %s\n' target executions exec/s "exec/s/proc" "peak RSS" edges features corpus findings
  for target in "${targets[@]}"; do
    logs=("$out/logs/$target".*.log)
    execs=$(cat "${logs[@]}" | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
    per_proc=$(cat "${logs[@]}" | awk '/stat::average_exec_per_sec/ {s += $2; n++} END {print n ? int(s / n) : 0}')
    rss=$(cat "${logs[@]}" | awk '/stat::peak_rss_mb/ {if ($2 > m) m = $2} END {print m + 0}')
    # Coverage of the final corpus: one replay of it (-runs=0 executes each input once).
    inited=$("$bin_dir/bitplane_fuzz_$target" -runs=0 -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
      "$work/corpus/$target" 2>&1 | grep -m1 INITED || true)
    edges=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$inited")
    features=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$inited")
    units=$(find "$work/corpus/$target" -type f | wc -l)
    # A finding: a crash, sanitizer report, leak, timeout or out-of-memory input, or a process
    # that did not end cleanly.
    found=$(find "$out/findings" -name "$target-*" -type f | wc -l)
    bad=$(grep -L -E 'Done [0-9]+ runs' "${logs[@]}" | wc -l)
    printf '%-14s %14s %10s %12s %7s MB %8s %9s %6s %s\n' "$target" "$execs" $((execs / (wall > 0 ? wall : 1))) \
      "$per_proc" "$rss" "${edges:-?}" "${features:-?}" "$units" "$found inputs, $bad processes not done"
  done
} >"$results"
if ((failed > 0)) || [[ -n "$(find "$out/findings" -type f)" ]]; then status=1; fi
if ((status == 0)); then echo "no findings" >>"$results"; else echo "FINDINGS: see findings/ and logs/" >>"$results"; fi
tee -a "$out/summary.txt" <"$results"
rm -f "$results"
tar -czf "$out/corpus.tar.gz" -C "$work" corpus
exit "$status"
