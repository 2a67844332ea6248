#!/usr/bin/env bash
# Prepares the peer libraries that bench/bench_corpus.cpp measures bitplane against, in .peers/
# (git-ignored; nothing fetched is committed), from snapshots already on this machine:
#   .peers/BitMagic   BitMagic (header-only, src/bm*.h), from a bare git mirror of tlk00/BitMagic:
#                     $BITPLANE_BITMAGIC_MIRROR, default /work/.mirror/tlk00+BitMagic/repo; a plain
#                     checkout (a folder with src/bm.h) given in $BITPLANE_BITMAGIC_SRC is copied.
#   .peers/CRoaring  CRoaring 5.x (the C library, static, built with its runtime AVX2/AVX-512
#                     dispatch: what a user building the current release gets), from a bare git
#                     mirror of RoaringBitmap/CRoaring: $BITPLANE_CROARING_MIRROR, default
#                     /work/.mirror/RoaringBitmap+CRoaring/repo; installed into .peers/CRoaring/install.
# Idempotent. Without a snapshot it says so and exits 0: the benchmarks then build without that
# peer and print that it is absent. Configure the benchmarks with
#   cmake ... -DBITPLANE_BITMAGIC_DIR=$PWD/.peers/BitMagic/src -DBITPLANE_CROARING_DIR=$PWD/.peers/CRoaring/install
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

peers=.peers
mkdir -p "$peers"
mirror=${BITPLANE_BITMAGIC_MIRROR:-/work/.mirror/tlk00+BitMagic/repo}
if [[ -s "$peers/BitMagic/src/bm.h" ]]; then
  echo "build-peers: BitMagic present in $peers/BitMagic ($(cat "$peers/BitMagic/SNAPSHOT" 2>/dev/null))"
elif [[ -n "${BITPLANE_BITMAGIC_SRC:-}" && -s "$BITPLANE_BITMAGIC_SRC/src/bm.h" ]]; then
  mkdir -p "$peers/BitMagic"
  cp -r "$BITPLANE_BITMAGIC_SRC/src" "$peers/BitMagic/"
  echo "copy of $BITPLANE_BITMAGIC_SRC" >"$peers/BitMagic/SNAPSHOT"
  echo "build-peers: BitMagic copied from $BITPLANE_BITMAGIC_SRC"
elif git --git-dir="$mirror" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  mkdir -p "$peers/BitMagic"
  git --git-dir="$mirror" archive HEAD src | tar -x -C "$peers/BitMagic"
  git --git-dir="$mirror" log -1 --format='tlk00/BitMagic %H (%cd)' >"$peers/BitMagic/SNAPSHOT"
  echo "build-peers: BitMagic from $mirror: $(cat "$peers/BitMagic/SNAPSHOT")"
else
  echo "build-peers: no BitMagic snapshot (set BITPLANE_BITMAGIC_MIRROR or BITPLANE_BITMAGIC_SRC): bench_corpus builds without it" >&2
fi

croaring_mirror=${BITPLANE_CROARING_MIRROR:-/work/.mirror/RoaringBitmap+CRoaring/repo}
if [[ -s "$peers/CRoaring/install/include/roaring/roaring.h" ]]; then
  echo "build-peers: CRoaring present in $peers/CRoaring ($(cat "$peers/CRoaring/SNAPSHOT" 2>/dev/null))"
elif git --git-dir="$croaring_mirror" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  rm -rf "$peers/CRoaring" && mkdir -p "$peers/CRoaring/src"
  # Only what the library build reads (the snapshot may lack the large benchmark data files).
  git --git-dir="$croaring_mirror" archive HEAD CMakeLists.txt README.md LICENSE cmake tools/cmake include src cpp roaring.pc.in tests/config.h.in 2>/dev/null \
    | tar -x -C "$peers/CRoaring/src"
  git --git-dir="$croaring_mirror" log -1 --format='RoaringBitmap/CRoaring %H (%cd)' >"$peers/CRoaring/SNAPSHOT"
  # Release build of the library only: no tests, no benchmarks, nothing fetched (CPM off).
  if cmake -S "$peers/CRoaring/src" -B "$peers/CRoaring/build" -DCMAKE_BUILD_TYPE=Release \
       -DENABLE_ROARING_TESTS=OFF -DROARING_USE_CPM=OFF -DROARING_BUILD_STATIC=ON \
       -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_PREFIX="$PWD/$peers/CRoaring/install" >/dev/null &&
     cmake --build "$peers/CRoaring/build" -j"$(nproc)" >/dev/null &&
     cmake --install "$peers/CRoaring/build" >/dev/null; then
    echo "build-peers: CRoaring from $croaring_mirror: $(cat "$peers/CRoaring/SNAPSHOT")"
  else
    echo "build-peers: CRoaring build failed: the benchmarks build without it" >&2
    rm -rf "$peers/CRoaring/install"
  fi
else
  echo "build-peers: no CRoaring snapshot (set BITPLANE_CROARING_MIRROR): the bitset benchmarks measure without it" >&2
fi
exit 0
