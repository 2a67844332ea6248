#!/usr/bin/env python3
"""Linkage lint (issue #22): fails when a symbol with external linkage is defined in two object
files of a build that were compiled with different instruction-set flags (-m...).

Why: an inline function or template emitted as a weak symbol by a translation unit built with
-mavx2 may be the copy the linker keeps, and then the scalar path calls AVX2 code on a CPU
without it. Code compiled under ISA flags must have internal linkage or live in a per-ISA
namespace, so that no name is shared across flag sets. xsimd lints its inline specifiers for
the same reason.

Usage: check-linkage.py BUILD_DIR   (the build must have compile_commands.json, which
bitplane's CMakeLists.txt exports when it is the top-level project)
"""
import collections
import json
import os
import shlex
import subprocess
import sys

def external_functions(path):
    """Functions an object defines with external linkage (readelf: FUNC or IFUNC, GLOBAL or
    WEAK, defined). Data is left out: a table has the same bytes whatever the flags, and a
    dynamic initializer is a function of its own."""
    out = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(parts) >= 8 and parts[3] in ("FUNC", "IFUNC") and parts[4] in ("GLOBAL", "WEAK") and parts[6] != "UND":
            yield parts[7]



def isa_flags(arguments):
    """The -m flags that choose instructions, as one sorted tuple ('' for the default set)."""
    flags = sorted({a for a in arguments if a.startswith("-m") and not a.startswith(("-mtune", "-mno-red-zone"))})
    return tuple(flags)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    # object file -> ISA flags
    objects = {}
    for entry in commands:
        args = entry.get("arguments") or shlex.split(entry["command"])
        if "-o" not in args:
            continue
        out = args[args.index("-o") + 1]
        path = os.path.normpath(os.path.join(entry["directory"], out))
        if path.endswith(".o") and os.path.exists(path):
            objects[path] = isa_flags(args)
    if not objects:
        sys.exit("check-linkage: no object files found under " + build)
    if len({flags for flags in objects.values()}) < 2:
        print("check-linkage: every object is built with one flag set; nothing to check")
        return 0
    definers = collections.defaultdict(set)  # symbol -> {(flags, object)}
    for path, flags in objects.items():
        for symbol in external_functions(path):
            definers[symbol].add((flags, path))
    clashes = {s: d for s, d in definers.items() if len({flags for flags, _ in d}) > 1}
    if clashes:
        demangled = subprocess.run(["c++filt"], input="\n".join(clashes), capture_output=True, text=True).stdout.split("\n")
        for (symbol, where), name in zip(sorted(clashes.items()), demangled):
            print("check-linkage: %s is defined under different ISA flags:" % name)
            for flags, path in sorted(where):
                print("    %-60s %s" % (os.path.relpath(path, build), " ".join(flags) or "(default flags)"))
        print("check-linkage: FAILED: %d symbols with external linkage built under several ISA flag sets" % len(clashes))
        return 1
    print("check-linkage: %d objects, %d flag sets, no symbol with external linkage shared across them"
          % (len(objects), len({flags for flags in objects.values()})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
