#!/usr/bin/env python3
"""Markdown tables of the ops section of a bitplane_cuda_bench CSV (docs/benchmarks.md, "GPU").

Usage: bench/cuda/report_ops.py bench/cuda/results/h100.csv [shape suffix, e.g. random32] [log2 sizes, e.g. 12,20,24,28]
For each operation: device-resident bitplane time, the dense GPU baseline and their ratio;
with transfers bitplane, the dense baseline with its copies, the bus (copies alone) and the
ratios; bitplane's CPU path and its ratio to the GPU (device-resident). Ratios are baseline
time over bitplane time: above 1, bitplane is faster.
"""
import csv
import sys

# operation: (device-resident: bitplane variant, dense baseline),
#            (with transfer: bitplane, dense baseline + copies, bus), CPU variant
FAMILIES = {
    "Reductions": [
        ("sum", ("bitplane sum", "thrust::transform_reduce dense"),
         ("bitplane pinned up + sum", "thrust dense pinned up + reduce", "cudaMemcpy dense pinned (bus)"), "bitplane CPU sum"),
        ("sum_of_squares", ("bitplane sum_of_squares", "thrust::transform_reduce dense (128-bit)"),
         ("bitplane pinned up + sum_of_squares", "thrust dense pinned up + reduce", "cudaMemcpy dense pinned (bus)"),
         "bitplane CPU sum_of_squares"),
        ("count_range", ("bitplane find_range + count()", "thrust::count_if dense"),
         ("bitplane pinned up + find_range + count()", "thrust dense pinned up + count_if", "cudaMemcpy dense pinned (bus)"),
         "bitplane CPU count_range"),
    ],
    "Decode and transfers": [
        ("decode", ("bitplane decode()", "cudaMemcpy dense D2D (a copy)"),
         ("bitplane pinned up + decode + values back", None, "cudaMemcpy dense up + back (bus)"), "bitplane CPU vector::decode"),
        ("device_vector upload", (None, None),
         ("bitplane compressed from pinned", None, "cudaMemcpy dense pinned (bus)"), None),
        ("device_vector upload", (None, None),
         ("bitplane device_vector(vector) pageable", None, "cudaMemcpy dense pinned (bus)"), None),
        ("device_vector download", (None, None),
         ("bitplane download() to vector", None, "cudaMemcpy dense to pinned (bus)"), None),
    ],
    "Scans": [
        ("find_eq", ("bitplane (dense device_bitset)", "dense ballot bitmap kernel"),
         ("bitplane pinned up + scan + words back", "dense up + bitmap kernel + words back", "cudaMemcpy dense up + words back (bus)"),
         "bitplane CPU (compressed bitset)"),
        ("find_range", ("bitplane (dense device_bitset)", "dense ballot bitmap kernel"),
         ("bitplane pinned up + scan + words back", "dense up + bitmap kernel + words back", "cudaMemcpy dense up + words back (bus)"),
         "bitplane CPU (compressed bitset)"),
        ("find_range", (None, None),
         ("bitplane pinned up + scan + download()", "dense up + bitmap kernel + words back", "cudaMemcpy dense up + words back (bus)"), None),
    ],
    "Bitwise": [
        ("bitwise_and", ("bitplane (dense values out)", "thrust::transform dense"),
         ("bitplane pinned up x2 + op + values back", "thrust dense up x2 + transform + back", "cudaMemcpy dense up x2 + back (bus)"),
         "bitplane CPU operator (compressed out)"),
        ("bitwise_or", ("bitplane (dense values out)", "thrust::transform dense"), (None, None, None), "bitplane CPU operator (compressed out)"),
        ("bitwise_xor", ("bitplane (dense values out)", "thrust::transform dense"), (None, None, None), "bitplane CPU operator (compressed out)"),
    ],
    "Similarity": [
        ("plane_hamming_matrix", ("bitplane plane_hamming_matrix", "seed kernel dense + sum"),
         ("bitplane pinned up + matrix", "seed kernel dense up + kernel + sum", "cudaMemcpy dense pinned (bus)"),
         "bitplane CPU plane_hamming_matrix"),
        ("plane_hamming_matrix", ("bitplane plane_hamming_matrix", "bitplane transpose_hamming dense + sum"), (None, None, None), None),
        ("cross_hamming_matrix", ("bitplane cross_hamming_matrix", None),
         ("bitplane pinned up x2 + matrix", None, "cudaMemcpy dense pinned x2 (bus)"), "bitplane CPU cross_hamming_matrix"),
        ("jaccard", ("bitplane jaccard", "thrust::inner_product popcounts dense"),
         ("bitplane pinned up x2 + jaccard", "thrust dense up x2 + popcounts", "cudaMemcpy dense pinned x2 (bus)"), "bitplane CPU jaccard"),
    ],
    "Device bitsets (A: half the positions, raw blocks; B: 1/32, position lists)": [
        ("bitset_and", ("bitplane encoded inputs", "thrust::transform dense words"),
         ("bitplane upload x2 + and + words back", "thrust dense words up x2 + transform + back", "cudaMemcpy dense words up x2 + back (bus)"),
         "bitplane CPU bitset"),
        ("bitset_and", ("bitplane dense inputs", "thrust::transform dense words"), (None, None, None), None, "bitset_and (dense inputs)"),
        ("bitset_and", (None, None),
         ("bitplane upload x2 + and + download()", "thrust dense words up x2 + transform + back", "cudaMemcpy dense words up x2 + back (bus)"),
         None, "bitset_and, result download()ed as a bitset"),
        ("bitset_or", ("bitplane encoded inputs", "thrust::transform dense words"), (None, None, None), "bitplane CPU bitset"),
        ("bitset_xor", ("bitplane encoded inputs", "thrust::transform dense words"), (None, None, None), "bitplane CPU bitset"),
        ("bitset_andnot", ("bitplane encoded inputs", "thrust::transform dense words"), (None, None, None), "bitplane CPU bitset"),
        ("bitset count", ("bitplane count() of a dense set", "thrust::transform_reduce popc dense"), (None, None, None), None),
        ("bitset and + count", ("bitplane bitset_and(encoded) + count()", "thrust::inner_product popc(a&b) dense"), (None, None, None),
         "bitplane CPU and_count"),
        ("device_bitset upload", (None, None),
         ("bitplane upload A (half set)", None, "cudaMemcpy dense words pinned (bus)"), None),
        ("device_bitset download", (None, None),
         ("bitplane download A encoded", None, "cudaMemcpy dense words to pinned (bus)"), None),
        ("device_bitset download", (None, None),
         ("bitplane download B dense", None, "cudaMemcpy dense words to pinned (bus)"), None),
        ("device_bitset to_dense", ("bitplane to_dense A", "cudaMemcpy dense words D2D (a copy)"), (None, None, None), None),
    ],
}


def load(path):
    t = {}
    for r in csv.DictReader(open(path)):
        t[(int(r["values"]), r["operation"], r["variant"])] = float(r["seconds"])
    return t


def ms(x):
    if x is None:
        return ""
    v = x * 1e3
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def ratio(base, ours):
    return f"**{base / ours:.2f}**" if base is not None and ours else ""


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    t = load(argv[1])
    shape = argv[2] if len(argv) > 2 and argv[2] else ""
    sizes = [int(x) for x in argv[3].split(",")] if len(argv) > 3 else [12, 20, 24, 28]
    suffix = f" ({shape})" if shape else ""

    def get(n, op, kind, variant):
        if variant is None:
            return None
        # device_vector/device_bitset transfer rows carry no "with transfer" / "device-resident"
        for name in (f"{op} {kind}{suffix}", f"{op}{suffix}"):
            if (n, name, variant) in t:
                return t[(n, name, variant)]
        return None

    for family, ops in FAMILIES.items():
        print(f"\n#### {family}\n")
        print("| operation | values | device: bitplane / dense GPU (ms) | ratio | with transfer: bitplane / dense / bus (ms) | vs dense | vs bus | CPU path (ms) | CPU / GPU |")
        print("|---|---|---|---|---|---|---|---|---|")
        for op, (dv, db), (tv, td, tb), cpu, *explicit in ops:
            for lg in sizes:
                n = 1 << lg
                d_ours, d_base = get(n, op, "device-resident", dv), get(n, op, "device-resident", db)
                t_ours, t_dense, t_bus = (get(n, op, "with transfer", v) for v in (tv, td, tb))
                c = get(n, op, "device-resident", cpu)
                if d_ours is None and t_ours is None:
                    continue
                label = op + (f" ({dv.replace('bitplane ', '')})" if dv and "inputs" in dv else "")
                if dv is None and tv:
                    label = f"{op}: {tv.replace('bitplane ', '')}"
                if op == "find_range" and dv is None:
                    label = "find_range, result download()ed as a bitset"
                if db and "transpose_hamming" in db:
                    label = "plane_hamming_matrix vs bitplane's own dense transpose_hamming"
                if explicit:
                    label = explicit[0]
                dev = f"{ms(d_ours)} / {ms(d_base)}" if d_ours is not None else ""
                tr = " / ".join(ms(x) if x is not None else "-" for x in (t_ours, t_dense, t_bus)) if t_ours is not None else ""
                print(f"| {label} | 2^{lg} | {dev} | {ratio(d_base, d_ours)} | {tr} | {ratio(t_dense, t_ours)} | "
                      f"{ratio(t_bus, t_ours)} | {ms(c)} | {ratio(c, d_ours)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
