#!/usr/bin/env bash
# Measures `bitplane pack` end to end, file to file, on 64 MiB binary columns (issue #6's
# acceptance: >= 1 GB/s, memory < 2 x output + 64 MiB): for each column, RUNS packs into a
# fresh output file (median rate, largest max RSS from /usr/bin/time -v), beside `cat FILE >
# /dev/null` and `cp FILE` of the same file as baselines; `sync` before each timed write. The columns are generated into
# build/pack-speed/: uniform 10-bit, 90% zeros + 20-bit, full-range random.
#   RUNS=N (default 7)   BITPLANE=path/to/bitplane (default build/release/tools/bitplane)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec python3 - "${BITPLANE:-build/release/tools/bitplane}" "${RUNS:-7}" <<'PY'
import array, json, os, random, statistics, subprocess, sys, time

bitplane, runs = sys.argv[1], int(sys.argv[2])
d = "build/pack-speed"
os.makedirs(d, exist_ok=True)
n = 1 << 24  # 64 MiB of 4-byte values
rng = random.Random(6)
shapes = {
    "uniform10": lambda: [rng.getrandbits(10) for _ in range(n)],
    "sparse20": lambda: [rng.getrandbits(20) if rng.random() < 0.1 else 0 for _ in range(n)],
    "random32": lambda: [rng.getrandbits(32) for _ in range(n)],
}

def timed(args, **kw):
    start = time.perf_counter()
    subprocess.run(args, check=True, **kw)
    return time.perf_counter() - start

with open("/proc/loadavg") as f:
    load = " ".join(f.read().split()[:3])
print("%d CPUs, load average %s; %d runs per figure, medians" % (os.cpu_count(), load, runs))
print("%-10s %8s %8s %10s %9s %12s %14s" % ("column", "cat GB/s", "cp GB/s", "pack GB/s", "out MiB", "max RSS MiB", "2 out + 64 MiB"))
for name, make in shapes.items():
    src = os.path.join(d, name + ".u32")
    if not os.path.exists(src) or os.path.getsize(src) != 4 * n:
        with open(src, "wb") as f:
            array.array("I", make()).tofile(f)
    size = os.path.getsize(src)
    copy, out = os.path.join(d, "copy"), os.path.join(d, name + ".bp")
    cat, cp, pack, rss = [], [], [], 0
    # Each run starts with the dirty pages of the previous writes (cp's copy, the last
    # output) on disk (`sync`), so that their write-back does not run during the next one.
    for _ in range(runs):
        cat.append(size / timed(["cat", src], stdout=subprocess.DEVNULL) / 1e9)
        if os.path.exists(copy):
            os.remove(copy)
        subprocess.run(["sync"], check=True)
        cp.append(size / timed(["cp", src, copy]) / 1e9)
        if os.path.exists(out):
            os.remove(out)
        subprocess.run(["sync"], check=True)
        r = subprocess.run(["/usr/bin/time", "-v", bitplane, "pack", src, "-o", out, "--json"],
                           check=True, capture_output=True, text=True)
        pack.append(json.loads(r.stdout)["input_gb_per_s"])
        if os.environ.get("VERBOSE"): print(name, "pack", round(pack[-1], 3), "GB/s", file=sys.stderr)
        for line in r.stderr.splitlines():
            if "Maximum resident set size" in line:
                rss = max(rss, int(line.split(":")[1]))
    os.remove(copy)
    out_mib = os.path.getsize(out) / 2**20
    print("%-10s %8.2f %8.2f %10.2f %9.1f %12.1f %14.1f" % (name, statistics.median(cat), statistics.median(cp),
          statistics.median(pack), out_mib, rss / 1024, 2 * out_mib + 64))
PY
