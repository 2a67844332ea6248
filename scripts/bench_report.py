#!/usr/bin/env python3
"""Prints the acceptance ratios of a bitplane_bench run as markdown tables.

Usage: scripts/bench_report.py build/bench/bench.json

Reads Google Benchmark's JSON (--benchmark_out_format=json). With repetitions it uses the
"median" aggregate of each benchmark; without, the median of its iterations' entries. Rates
(items/s, bytes/s, ns per get) are Google Benchmark's, computed from CPU time; ratios are taken
between benchmarks of the same run. GB/s means 1e9 bytes per second. Python 3 standard library only.
"""

import json
import re
import statistics
import sys

SHAPES = ["uniform10", "uniform3", "zeros90_20bit", "timestamps", "signed_sentinels", "random32"]
SHAPE_NOTES = {
    "uniform10": "uniform 10-bit",
    "uniform3": "uniform 3-bit",
    "zeros90_20bit": "90% zeros + uniform 20-bit",
    "timestamps": "sorted timestamps, step 1000 +- 15",
    "signed_sentinels": "int32 in [-1000, 1000], 10% -1",
    "random32": "full-range 32-bit",
}
# bits per value in memory after seal(), per shape (acceptance targets)
BITS_TARGETS = {"uniform10": 10.2, "zeros90_20bit": 3.1, "random32": 32.3}
ENCODE_RATIO_TARGET = 8.0
DECODE_GBPS_TARGET = 4.0
RANDOM_GET_NS_TARGET = 30.0
TIMESTAMPS_PLAIN_RATIO_TARGET = 1.0 / 3.0

KERNELS = [
    "transpose",
    "untranspose_live10",
    "untranspose_live32",
    "pair_popcounts_10",
    "pair_popcounts_32",
    "bitplane_transpose_pair_popcounts",
    "bitplane_transpose_pair_popcounts_32bit",
]
TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def normalize(name):
    """Drops the suffixes Google Benchmark appends (iterations:1, repeats:3, ...)."""
    return re.sub(r"/(iterations|repeats|min_time|threads):[^/]+|/real_time|/manual_time", "", name)


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    medians = {}
    iterations = {}
    cvs = {}
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            medians.setdefault(normalize(b.get("run_name", b["name"])), {"error": b.get("error_message", "error")})
            continue
        name = normalize(b.get("run_name", b["name"]))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b
            elif b.get("aggregate_name") == "cv":
                cvs[name] = b
        else:
            iterations.setdefault(name, []).append(b)
    for name, runs in iterations.items():
        if name in medians:
            continue
        merged = dict(runs[0])
        for key, value in runs[0].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                merged[key] = statistics.median(r[key] for r in runs if key in r)
        medians[name] = merged
    return data.get("context", {}), medians, cvs


class Report:
    def __init__(self, medians, cvs):
        self.m = medians
        self.cvs = cvs

    def get(self, name, key):
        b = self.m.get(name)
        if b is None or "error" in b:
            return None
        return b.get(key)

    def cpu_ns(self, name):
        b = self.m.get(name)
        if b is None or "error" in b:
            return None
        return b["cpu_time"] * TIME_UNIT_NS[b.get("time_unit", "ns")]

    def real_ns(self, name):
        b = self.m.get(name)
        if b is None or "error" in b:
            return None
        return b["real_time"] * TIME_UNIT_NS[b.get("time_unit", "ns")]


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(x, digits=2, suffix=""):
    if x is None:
        return "n/a"
    return f"{x:.{digits}f}{suffix}"


def status(ok):
    if ok is None:
        return "n/a"
    return "met" if ok else "**NOT met**"


def gbps(bytes_per_second):
    return None if bytes_per_second is None else bytes_per_second / 1e9


def mps(items_per_second):
    return None if items_per_second is None else items_per_second / 1e6


def fmt_time(ns):
    if ns is None:
        return "n/a"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def acceptance(r):
    rows = []
    enc = r.get("BM_Encode/uniform10", "items_per_second")
    seed = r.get("BM_SeedBaseline", "items_per_second")
    seed_hw = r.get("BM_SeedBaseline_hwpopcnt", "items_per_second")
    x = ratio(enc, seed)
    rows.append(["encode uniform10 vs seed baseline (items/s)",
                 f"{fmt(mps(enc), 1)} M/s vs {fmt(mps(seed), 1)} M/s", fmt(x, 2, "x"),
                 f">= {ENCODE_RATIO_TARGET:g}x", status(None if x is None else x >= ENCODE_RATIO_TARGET)])
    if seed_hw is not None:
        x_hw = ratio(enc, seed_hw)
        rows.append(["encode uniform10 vs seed baseline with hardware popcnt (items/s)",
                     f"{fmt(mps(enc), 1)} M/s vs {fmt(mps(seed_hw), 1)} M/s", fmt(x_hw, 2, "x"),
                     "(informational)", "-"])
    dec = gbps(r.get("BM_Decode/uniform10", "bytes_per_second"))
    mem = gbps(r.get("BM_DecodeDense", "bytes_per_second"))
    rows.append(["decode uniform10 (GB/s of output)", f"{fmt(dec)} GB/s", "", f">= {DECODE_GBPS_TARGET:g} GB/s",
                 status(None if dec is None else dec >= DECODE_GBPS_TARGET)])
    rows.append(["decode uniform10 vs memcpy", f"{fmt(dec)} vs {fmt(mem)} GB/s", fmt(ratio(dec, mem), 2, "x"),
                 "(informational)", "-"])
    get_ns = r.get("BM_RandomGet/uniform10", "ns_per_get")
    dense_ns = r.get("BM_RandomGetDense", "ns_per_get")
    rows.append(["random get uniform10 (ns per get)", f"{fmt(get_ns, 1)} ns", "", f"< {RANDOM_GET_NS_TARGET:g} ns",
                 status(None if get_ns is None else get_ns < RANDOM_GET_NS_TARGET)])
    rows.append(["random get uniform10 vs std::vector", f"{fmt(get_ns, 1)} vs {fmt(dense_ns, 1)} ns",
                 fmt(ratio(get_ns, dense_ns), 2, "x slower"), "(informational)", "-"])
    for shape, target in BITS_TARGETS.items():
        bits = r.get(f"BM_Size/{shape}", "bits_per_value")
        rows.append([f"bits/value in memory after seal(), {shape}", fmt(bits, 3), "", f"<= {target:g}",
                     status(None if bits is None else bits <= target)])
    plain = r.get("BM_Size/timestamps", "ratio_to_plain")
    rows.append(["timestamps: encoded / plain bit-plane size", fmt(plain, 3), "", "<= 1/3 (0.333)",
                 status(None if plain is None else plain <= TIMESTAMPS_PLAIN_RATIO_TARGET)])
    no_delta = r.get("BM_Size/timestamps", "ratio_to_no_delta")
    rows.append(["timestamps: encoded / encoded without delta", fmt(no_delta, 3), "", "(informational)", "-"])
    return table(["acceptance figure", "measured", "ratio", "target", "status"], rows)


def operations(r):
    """Issue #3's acceptance ratios (baseline time / bitplane time, same run)."""
    rows = []

    def faster(name, ours, base, target, time=None):
        t = time or r.cpu_ns
        x = ratio(t(base), t(ours))
        if x is None:
            return
        rows.append([name, f"{fmt_time(t(ours))} vs {fmt_time(t(base))}", fmt(x, 2, "x"),
                     "(informational)" if target is None else f">= {target:g}x",
                     "-" if target is None else status(x >= target)])

    faster("sum, 10-bit vs plain loop", "BM_ReduceSum/bitplane/10", "BM_ReduceSum/loop/10", 4)
    faster("dot, 3-bit vs AVX2 loop", "BM_ReduceDot/bitplane/3", "BM_ReduceDot/dense_avx2/3", 3)
    faster("dot, 8-bit vs AVX2 loop", "BM_ReduceDot/bitplane/8", "BM_ReduceDot/dense_avx2/8", 1)
    faster("dot, 8-bit vs std::inner_product", "BM_ReduceDot/bitplane/8", "BM_ReduceDot/inner_product/8", None)
    faster("dot, 8-bit vs cblas_ddot", "BM_ReduceDot/bitplane/8", "BM_ReduceDot/cblas_ddot/8", None)
    widths = [(k, ratio(r.cpu_ns(f"BM_ReduceDot/dense_avx2/{k}"), r.cpu_ns(f"BM_ReduceDot/bitplane/{k}")))
              for k in range(1, 33)]
    widths = [(k, x) for k, x in widths if x is not None]
    if widths:
        k, worst = min(widths, key=lambda w: w[1])
        rows.append(["dot, worst width 1..32 vs AVX2 loop", f"{k} bits", fmt(worst, 2, "x"),
                     ">= 0.67x (never > 1.5x slower)", status(worst >= 1 / 1.5)])
        rows.append(["dot, every width 1..32 vs AVX2 loop", " ".join(fmt(x, 2) for _, x in widths), "", "", "-"])
    faster("find_eq, 10-bit vs branch-free scan", "BM_Scan/uniform10/find_eq/bitplane",
           "BM_Scan/uniform10/find_eq/dense", 5)
    faster("find_range, 10-bit vs branch-free scan", "BM_Scan/uniform10/find_range/bitplane",
           "BM_Scan/uniform10/find_range/dense", 3)
    faster("find_eq, 10-bit vs AVX2 dense scan", "BM_Scan/uniform10/find_eq/bitplane",
           "BM_Scan/uniform10/find_eq/dense_avx2", None)
    faster("find_range, 10-bit vs AVX2 dense scan", "BM_Scan/uniform10/find_range/bitplane",
           "BM_Scan/uniform10/find_range/dense_avx2", None)
    for op in ("and", "or", "xor", "andnot"):
        faster(f"bitwise {op}, 10-bit vs dense loop (wall)", f"BM_Bitwise/{op}/1", f"BM_BitwiseDenseLoop/{op}", 2,
               r.real_ns)
    for op in ("And", "Or", "Xor", "AndNot", "AndCount"):
        for density, label in (("5000", "50%"), ("100", "1%"), ("1", "0.01%")):
            faster(f"bitset {op} at {label} vs CRoaring", f"BM_Bitset{op}/{density}", f"BM_Roaring{op}/{density}", 1)
    if not rows:
        return None
    return table(["operation (16M values, one thread)", "bitplane vs baseline", "speed-up", "target", "status"], rows)


def per_shape(r):
    rows = []
    memcpy = r.get("BM_DecodeDense", "bytes_per_second")
    dense_get = r.get("BM_RandomGetDense", "ns_per_get")
    std_push = r.get("BM_PushBackStd", "items_per_second")
    dense_range = r.get("BM_BulkDecodeRangeDense", "bytes_per_second")
    for s in SHAPES:
        dec = r.get(f"BM_Decode/{s}", "bytes_per_second")
        get_ns = r.get(f"BM_RandomGet/{s}", "ns_per_get")
        push = r.get(f"BM_PushBack/{s}", "items_per_second")
        rng = r.get(f"BM_BulkDecodeRange/{s}", "bytes_per_second")
        rows.append([
            f"{s} ({SHAPE_NOTES[s]})",
            fmt(mps(r.get(f"BM_Encode/{s}", "items_per_second")), 0),
            fmt(gbps(dec)), fmt(ratio(dec, memcpy), 2),
            fmt(get_ns, 1), fmt(ratio(get_ns, dense_get), 1),
            fmt(mps(push), 0), fmt(ratio(push, std_push), 2),
            fmt(gbps(rng)), fmt(ratio(rng, dense_range), 2),
            fmt(r.get(f"BM_Size/{s}", "bits_per_value"), 3),
            fmt(r.get(f"BM_Size/{s}", "encoded_bits_per_value"), 3),
            fmt(r.get(f"BM_Size/{s}", "ratio_to_plain"), 3),
            fmt(r.get(f"BM_Size/{s}", "ratio_to_no_delta"), 3),
        ])
    rows.append(["baseline (std::vector / memcpy)", "", fmt(gbps(memcpy)), "1", fmt(dense_get, 1), "1",
                 fmt(mps(std_push), 0), "1", fmt(gbps(dense_range)), "1", "32", "", "", ""])
    header = ["shape", "encode M values/s", "decode GB/s", "decode / memcpy", "get ns",
              "get ns / std::vector ns", "push_back+seal M values/s", "push_back / std::vector",
              "4096-range decode GB/s", "range / memcpy", "bits/value in memory", "bits/value encoded",
              "encoded / plain", "encoded / no-delta"]
    return table(header, rows)


def kernels(r):
    paths = [p for p in ("scalar", "sse2", "avx2", "avx512") if f"transpose/{p}" in r.m]
    if not paths and "seed_transpose_hamming" not in r.m:
        return None
    lines = []
    seeds = ["seed_transpose", "seed_transpose_hamming", "seed_transpose_hamming_32bit",
             "seed_transpose_hamming_hwpopcnt", "seed_transpose_hamming_hwpopcnt_32bit"]
    rows = [[s, fmt_time(r.cpu_ns(s))] for s in seeds if s in r.m]
    if rows:
        lines.append(table(["seed kernel (one 2048-value block)", "CPU time"], rows))
        lines.append("")
    if paths:
        rows = []
        for k in KERNELS:
            rows.append([k] + [fmt_time(r.cpu_ns(f"{k}/{p}")) for p in paths])
        for base in ("seed_transpose_hamming", "seed_transpose_hamming_hwpopcnt"):
            if base not in r.m:
                continue
            for bits, suffix in (("10-bit", ""), ("32-bit", "_32bit")):
                rows.append([f"{base}{suffix} / bitplane_transpose_pair_popcounts{suffix} ({bits})"] +
                            [fmt(ratio(r.cpu_ns(base + suffix), r.cpu_ns(f"bitplane_transpose_pair_popcounts{suffix}/{p}")),
                                 2, "x") for p in paths])
        lines.append(table(["kernel (one block), CPU time"] + paths, rows))
    return "\n".join(lines)


def all_benchmarks(r):
    rows = []
    for name, b in r.m.items():
        if "error" in b:
            rows.append([name, "error: " + b["error"], "", "", "", ""])
            continue
        cv = r.cvs.get(name)
        cv_text = f"{100 * cv['cpu_time']:.1f}%" if cv is not None and "cpu_time" in cv else ""
        rows.append([name, fmt_time(r.real_ns(name)), fmt_time(r.cpu_ns(name)), cv_text,
                     fmt(mps(b.get("items_per_second")), 1), fmt(gbps(b.get("bytes_per_second")), 2)])
    return table(["benchmark", "median real time", "median CPU time", "CPU time cv", "M items/s", "GB/s"], rows)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    context, medians, cvs = load(argv[1])
    r = Report(medians, cvs)
    print("## bitplane benchmark report")
    print()
    print(f"- date: {context.get('date', '?')}; host: {context.get('host_name', '?')}; "
          f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz")
    print(f"- bitplane SIMD path: {context.get('bitplane_simd_path', '?')}; "
          f"benchmark library build: {context.get('library_build_type', '?')}")
    reps = sorted({b.get("repetitions", 1) for b in medians.values() if isinstance(b, dict) and "error" not in b})
    print(f"- figures: median of {', '.join(str(x) for x in reps) or '?'} repetition(s); rates from CPU time; "
          "GB/s = 1e9 bytes/s")
    print()
    print("### Acceptance")
    print()
    print(acceptance(r))
    print()
    ops = operations(r)
    if ops:
        print("### Operations (issue #3)")
        print()
        print(ops)
        print()
    print("### Per shape (16M values each)")
    print()
    print(per_shape(r))
    k = kernels(r)
    if k:
        print()
        print("### Kernels (bench_kernels.cpp)")
        print()
        print(k)
    print()
    print("### Every benchmark")
    print()
    print(all_benchmarks(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
