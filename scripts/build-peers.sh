#!/usr/bin/env bash
# Prepares the peer libraries that bench/bench_corpus.cpp measures bitplane against, in .peers/
# (git-ignored; nothing fetched is committed), from snapshots already on this machine:
#   .peers/BitMagic   BitMagic (header-only, src/bm*.h), from a bare git mirror of tlk00/BitMagic:
#                     $BITPLANE_BITMAGIC_MIRROR, default /work/.mirror/tlk00+BitMagic/repo; a plain
#                     checkout (a folder with src/bm.h) given in $BITPLANE_BITMAGIC_SRC is copied.
# Idempotent. Without a snapshot it says so and exits 0: the benchmark then builds without
# BitMagic and prints that it is absent. Configure the benchmark with
#   cmake ... -DBITPLANE_BITMAGIC_DIR=$PWD/.peers/BitMagic/src
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
exit 0
