#!/usr/bin/env bash
# THE test command (README "Quick start"; CI runs it through .ci/run).
#
# Stages:
#   1. install-deps   missing Debian packages (scripts/install-deps.sh)
#   2. release        Release build in build/release (-Werror), ctest
#   3. asan + clang   one build serves both: clang++ (-Werror) with ASan + UBSan in build/asan
#                     (RelWithDebInfo at -O1), same ctest. The second compiler and the
#                     sanitizers each used to cost a build of their own; CI's time limit is
#                     better spent on the tests. It also builds the fuzz targets (stage 7)
#   4. tsan           ThreadSanitizer build in build/tsan of bitplane_thread_tests (the test
#                     files that hold threading tests: tests/CMakeLists.txt finds them); runs
#                     the tests of the threading contract (names containing "Concurren", and
#                     the bitset builder fed from several threads)
#   2b. simd paths    the same ctest again with each other SIMD path this CPU runs forced for
#                     the whole process (BITPLANE_SIMD=scalar, sse2, and avx2/avx512 where present)
#   5. linkage        the library built shared, unoptimized, with LTO in build/linkage:
#                     -Werror=odr (one definition per type across translation units),
#                     scripts/check-linkage.py (no function with external linkage compiled under
#                     two ISA flag sets), scripts/check-exports.sh (exports are bitplane's only)
#   6. consumer       install build/release (static) and build/linkage (shared) into temporary
#                     prefixes, build tests/consumer against each with find_package(bitplane)
#                     and Boost's headers hidden, run them (scripts/consumer-check.sh)
#   7. fuzz           bounded libFuzzer runs of every target (scripts/fuzz.sh) from build/asan,
#                     as many targets at a time as there are jobs
#
# Environment:
#   BITPLANE_TEST_QUICK=1   skip the forced SIMD paths, the sanitizer (clang), TSan and linkage
#                           builds and the fuzz runs (stages 2b, 3, 4, 5 and 7)
#   BITPLANE_TEST_ALL=1     also run tests labelled `slow` or `fuzz` (excluded by default)
#   BITPLANE_JOBS=N         build and test parallelism (default: nproc)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs="${BITPLANE_JOBS:-$(nproc)}"
# --timeout: a test with no TIMEOUT property of its own is stopped after 10 minutes, so that a
# hang fails the run instead of eating CI's time limit.
ctest_args=(--output-on-failure --no-tests=error --timeout 600 -j "$jobs")
if [[ "${BITPLANE_TEST_ALL:-0}" != "1" ]]; then
  ctest_args+=(--label-exclude 'slow|fuzz')
fi

timings=()
script_start=$(date +%s)
stage_start=0
begin() {
  stage_start=$(date +%s)
  echo
  echo "=== test.sh: $1 ==="
}
end() {
  local seconds=$(( $(date +%s) - stage_start ))
  timings+=("$(printf '%-32s %5d s' "$1" "$seconds")")
  echo "=== test.sh: $1 done in ${seconds} s ==="
}
prefix=""
summary() {
  local status=$?
  if [[ -n "$prefix" ]]; then rm -rf "$prefix"; fi
  echo
  echo "=== test.sh: stage times ==="
  local line
  for line in "${timings[@]+"${timings[@]}"}"; do echo "  $line"; done
  if ((status == 0)); then
    echo "=== test.sh: PASSED in $(( $(date +%s) - script_start )) s ==="
  else
    echo "=== test.sh: FAILED (exit $status) after $(( $(date +%s) - script_start )) s ===" >&2
  fi
}
trap summary EXIT

begin "install-deps"
bash scripts/install-deps.sh
bash scripts/fetch-genomes.sh  # real genomes for the DNA tests (build/genomes; they skip without it)
echo "jobs: $jobs; $(cmake --version | head -n1); $(g++ --version | head -n1);" \
  "nvcc: $(command -v nvcc || echo 'none on PATH (CMake may still find /usr/local/cuda)')"
end "install-deps"

# ---- Release ------------------------------------------------------------------------------
begin "release: configure"
cmake --preset release -DBITPLANE_BUILD_TESTS=ON -DBITPLANE_WERROR=ON
end "release: configure"

begin "release: build"
cmake --build build/release -j "$jobs"
end "release: build"

begin "release: ctest"
ctest --test-dir build/release "${ctest_args[@]}"
end "release: ctest"

# ---- every SIMD path, forced for the whole process ----------------------------------------
# The tests that sweep paths do so themselves; this runs everything else (codec, operations,
# bitsets, DNA, the tool) on each path too, as a CPU without AVX2 or AVX-512 would.
if [[ "${BITPLANE_TEST_QUICK:-0}" != "1" ]]; then
  cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
  simd_paths=(scalar sse2)
  best="sse2"
  if [[ " $cpu_flags " == *" avx2 "* && " $cpu_flags " == *" bmi2 "* && " $cpu_flags " == *" popcnt "* ]]; then
    simd_paths+=(avx2)
    best="avx2"
  fi
  avx512_ok=1
  for flag in avx512f avx512bw avx512vbmi avx512_vpopcntdq gfni; do
    [[ " $cpu_flags " == *" $flag "* ]] || avx512_ok=0
  done
  if ((avx512_ok)); then
    simd_paths+=(avx512)
    best="avx512"
  fi
  # Tests named ...EveryPath / ...EverySimdPath / ...AndPath sweep every path themselves
  # (available_simd_paths() ignores BITPLANE_SIMD), so the run above covered them on each path;
  # repeating them per forced path cost about a fifth of each of these runs. Other tests sweep
  # paths inside a larger body (on_every_path, paths_to_sweep() in tests/test_support.hpp):
  # BITPLANE_TEST_PATHS_SWEPT=1 makes their sweeps take the forced path only, while the rest of
  # each body still runs on it. cli.fault_injection checks how the tool meets failing writes,
  # not its SIMD path (it took 77 s of the scalar run).
  not_per_path='(Every|And)(Simd)?Path|^cli\.fault_injection$'
  for path in "${simd_paths[@]}"; do
    [[ "$path" == "$best" ]] && continue  # the run above took the best path already
    begin "release: ctest, BITPLANE_SIMD=$path"
    BITPLANE_SIMD="$path" BITPLANE_TEST_PATHS_SWEPT=1 ctest --test-dir build/release "${ctest_args[@]}" -E "$not_per_path"
    end "release: ctest, BITPLANE_SIMD=$path"
  done
fi

# ---- ASan + UBSan, built with clang ------------------------------------------------------
if [[ "${BITPLANE_TEST_QUICK:-0}" == "1" ]]; then
  echo
  echo "=== test.sh: BITPLANE_TEST_QUICK=1: skipping the sanitizer (clang) build ==="
else
  # The asan preset turns the CUDA part off: its tests only run where a GPU is, and the CUDA
  # runtime and ASan do not mix without extra options. clang++ with -Werror is the second
  # compiler: it catches what g++ accepts and the standard does not (bitplane's own code only).
  begin "asan (clang): configure"
  # BITPLANE_FUZZ=ON: the same build holds the libFuzzer targets of the fuzz stage (7), and the
  # library carries their coverage instrumentation (the tests and tools do not).
  cmake --preset asan -DBITPLANE_BUILD_TESTS=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DBITPLANE_WERROR=ON -DBITPLANE_FUZZ=ON
  end "asan (clang): configure"

  begin "asan (clang): build"
  cmake --build build/asan -j "$jobs"
  end "asan (clang): build"

  begin "asan (clang): ctest"
  ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    ctest --test-dir build/asan "${ctest_args[@]}"
  end "asan (clang): ctest"
fi

if [[ "${BITPLANE_TEST_QUICK:-0}" != "1" ]]; then
  # ---- ThreadSanitizer --------------------------------------------------------------------
  # oneTBB is not built with TSan, so its own synchronization would be reported: the TSan
  # build runs bulk operations serially (BITPLANE_TBB=OFF) and the tests start their own
  # std::threads, which is the contract being checked (concurrent const use of one object).
  begin "tsan: configure + build"
  cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DBITPLANE_TSAN=ON -DBITPLANE_TBB=OFF -DBITPLANE_CUDA=OFF -DBITPLANE_BUILD_TESTS=ON \
    -DBITPLANE_BUILD_BENCHMARKS=OFF -DBITPLANE_BUILD_TOOLS=OFF
  cmake --build build/tsan -j "$jobs" --target bitplane_thread_tests
  end "tsan: configure + build"

  begin "tsan: threading tests"
  TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}" \
    build/tsan/tests/bitplane_thread_tests --gtest_filter='*Concurren*:*FromSeveralThreads*'
  end "tsan: threading tests"
fi

# ---- linkage: one definition per name, no code shared across ISA flags, clean exports -------
# Unoptimized, so that inline functions are emitted out of line where a debug build would emit
# them (the ISA translation units stay optimized: src/CMakeLists.txt says why); LTO, so that
# GCC compares every type across translation units (-Wodr); shared, to check the exports.
if [[ "${BITPLANE_TEST_QUICK:-0}" != "1" ]]; then
  begin "linkage: configure + build"
  cmake -S . -B build/linkage -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O0 -flto=auto -ffat-lto-objects -Werror=odr" \
    -DCMAKE_SHARED_LINKER_FLAGS="-flto=auto -Werror=odr" -DBUILD_SHARED_LIBS=ON -DBITPLANE_CUDA=OFF \
    -DBITPLANE_BUILD_TESTS=OFF -DBITPLANE_BUILD_BENCHMARKS=OFF -DBITPLANE_BUILD_TOOLS=OFF
  cmake --build build/linkage -j "$jobs"
  end "linkage: configure + build"

  begin "linkage: checks"
  python3 scripts/check-linkage.py build/linkage
  python3 scripts/check-linkage.py build/release
  bash scripts/check-exports.sh build/linkage/src/libbitplane.so
  end "linkage: checks"
fi

# ---- find_package consumer ----------------------------------------------------------------
# scripts/consumer-check.sh: install, then build and run tests/consumer with Boost hidden.
begin "consumer: install + build + run"
prefix=$(mktemp -d "${TMPDIR:-/tmp}/bitplane-consumer.XXXXXX")
bash scripts/consumer-check.sh build/release "$prefix/static"
if [[ -d build/linkage ]]; then bash scripts/consumer-check.sh build/linkage "$prefix/shared"; fi
end "consumer: install + build + run"

# ---- bounded fuzzing ----------------------------------------------------------------------
# Every libFuzzer target (loaders of untrusted bytes, the differential SIMD target) under
# libFuzzer + ASan + UBSan, seeded with every data shape; BITPLANE_FUZZ_SECONDS per target
# (60 by default, as issue #7 asks of CI).
if [[ "${BITPLANE_TEST_QUICK:-0}" == "1" ]]; then
  echo
  echo "=== test.sh: BITPLANE_TEST_QUICK=1: skipping the fuzz runs ==="
else
  begin "fuzz (bounded)"
  BITPLANE_FUZZ_BUILD=build/asan BITPLANE_FUZZ_SECONDS="${BITPLANE_FUZZ_SECONDS:-60}" bash scripts/fuzz.sh
  end "fuzz (bounded)"
fi
