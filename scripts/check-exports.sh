#!/usr/bin/env bash
# Exported-symbol check (issue #22): every dynamic symbol libbitplane.so defines must be a name
# in namespace bitplane (src/bitplane.map says which mangled forms); anything else (xsimd,
# std:: instantiations, xxHash) leaking out could be bound to another library's copy at run time.
#   bash scripts/check-exports.sh path/to/libbitplane.so
set -euo pipefail
lib="$1"
mangled=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//')
ours='^_Z(T[ISVT]|GV|Th[^N]*)?Z?NK?8bitplane'
others=$(grep -Ev "$ours" <<<"$mangled" | grep -Ev '^(LIBBITPLANE|BITPLANE)' || true)
count=$(grep -Ec "$ours" <<<"$mangled" || true)
if [[ -n "$others" ]]; then
  echo "check-exports: $lib exports symbols outside namespace bitplane:" >&2
  c++filt <<<"$others" | head -n 40 >&2
  echo "check-exports: FAILED ($(wc -l <<<"$others") symbols)" >&2
  exit 1
fi
if ((count == 0)); then
  echo "check-exports: $lib exports nothing of namespace bitplane" >&2
  exit 1
fi
echo "check-exports: $lib exports $count symbols, all in namespace bitplane"
