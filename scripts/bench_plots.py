#!/usr/bin/env python3
"""Plots for docs/benchmarks.md from a bitplane_bench JSON run (the "Operations (issue #3)"
command there), drawn by gnuplot (scripts/install-deps.sh installs it) as PNG:

  OUT/bench-dot-widths.png   dot of two 16M-value columns, bitplane against the AVX2 dense
                             loop, for every bit width 1..32 (speed-up, higher is better)
  OUT/bench-operations.png   every other operation's speed-up against its baseline

Usage: scripts/bench_plots.py RUN.json [OUT_DIR (default docs)]
Ratios come from one run (CPU time medians; bitwise ops wall time, as bench_report.py).

       scripts/bench_plots.py bench/cuda/results/h100.csv [OUT_DIR (default docs)]
draws OUT/gpu-ops-h100.png from a bitplane_cuda_bench CSV instead: speed (dense-equivalent
GB/s: the operands' plain uint32 bytes over the median time) against size for bitplane's GPU
operations on uniform 10-bit data, device-resident and with transfers, beside thrust and the
bus (the device machine has no plotting tools; draw it where the CSV is copied).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_report  # noqa: E402  (the loader and the same ratios as the tables)


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


GPU_DEVICE_SERIES = [
    ("dot", "dot device-resident", "bitplane compressed"),
    ("sum_of_squares", "sum_of_squares device-resident", "bitplane sum_of_squares"),
    ("sum", "sum device-resident", "bitplane sum"),
    ("decode", "decode device-resident", "bitplane decode()"),
    ("find_range", "find_range device-resident", "bitplane (dense device_bitset)"),
    ("bitwise_and", "bitwise_and device-resident", "bitplane (dense values out)"),
    ("jaccard", "jaccard device-resident", "bitplane jaccard"),
    ("plane Hamming", "plane_hamming_matrix device-resident", "bitplane plane_hamming_matrix"),
    ("thrust sum (dense)", "sum device-resident", "thrust::transform_reduce dense"),
    ("thrust dot (dense)", "dot device-resident", "thrust::inner_product dense"),
]
GPU_TRANSFER_SERIES = [
    ("dot (pinned_vector)", "dot with transfer", "bitplane pinned_vector"),
    ("sum_of_squares", "sum_of_squares with transfer", "bitplane pinned up + sum_of_squares"),
    ("sum", "sum with transfer", "bitplane pinned up + sum"),
    ("find_range, words back", "find_range with transfer", "bitplane pinned up + scan + words back"),
    ("bitwise_and", "bitwise_and with transfer", "bitplane pinned up x2 + op + values back"),
    ("jaccard", "jaccard with transfer", "bitplane pinned up x2 + jaccard"),
    ("thrust sum + copy (dense)", "sum with transfer", "thrust dense pinned up + reduce"),
    ("bus: dense H2D copy", "sum with transfer", "cudaMemcpy dense pinned (bus)"),
]


def gpu_ops_plot(csv_path, png):
    import csv

    rows = list(csv.DictReader(open(csv_path)))

    def series(op, variant):
        return sorted((int(r["values"]), float(r["GBps"])) for r in rows if r["operation"] == op and r["variant"] == variant)

    with tempfile.TemporaryDirectory() as tmp:
        panels = []
        for title, spec in (("device-resident", GPU_DEVICE_SERIES), ("with transfers (pinned host memory)", GPU_TRANSFER_SERIES)):
            plots = []
            for i, (label, op, variant) in enumerate(spec):
                points = series(op, variant)
                if not points:
                    continue
                data = os.path.join(tmp, f"{len(panels)}_{i}.dat")
                with open(data, "w") as f:
                    for n, gbps in points:
                        f.write(f"{n.bit_length() - 1} {gbps}\n")
                dashed = "dt 2" if ("thrust" in label or "bus" in label) else "dt 1"
                plots.append(f"'{data}' using 1:2 with linespoints lw 2 {dashed} title '{label}' noenhanced")
            panels.append((title, plots))
        script = [f"set terminal pngcairo size 1500,620 font ',10'; set output '{png}'",
                  "set multiplot layout 1,2 title 'bitplane on an H100: uniform 10-bit values, dense-equivalent GB/s (4 B per value and operand / median time)'",
                  "set logscale y; set grid; set xlabel 'log2(values)'; set ylabel 'GB/s'; set key left top",
                  "set xrange [9.5:28.5]; set xtics 10,2,28"]
        for title, plots in panels:
            if plots:
                script.append(f"set title '{title}'")
                script.append("plot " + ", ".join(plots))
        script.append("unset multiplot")
        gnuplot("\n".join(script) + "\n")
    print("wrote " + png)
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    if argv[1].endswith(".csv"):
        return gpu_ops_plot(argv[1], os.path.join(argv[2] if len(argv) > 2 else "docs", "gpu-ops-h100.png"))
    out_dir = argv[2] if len(argv) > 2 else "docs"
    context, medians, cvs = bench_report.load(argv[1])
    r = bench_report.Report(medians, cvs)
    when = context.get("date", "")[:16].replace("T", " ")
    machine = f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz"

    widths = [(k, bench_report.ratio(r.cpu_ns(f"BM_ReduceDot/dense_avx2/{k}"), r.cpu_ns(f"BM_ReduceDot/bitplane/{k}")))
              for k in range(1, 33)]
    widths = [(k, x) for k, x in widths if x is not None]
    ops = []
    for label, ours, base, time in [
        ("sum 10-bit / loop", "BM_ReduceSum/bitplane/10", "BM_ReduceSum/loop/10", r.cpu_ns),
        ("find_eq / scan", "BM_Scan/uniform10/find_eq/bitplane", "BM_Scan/uniform10/find_eq/dense", r.cpu_ns),
        ("find_eq / AVX2 scan", "BM_Scan/uniform10/find_eq/bitplane", "BM_Scan/uniform10/find_eq/dense_avx2", r.cpu_ns),
        ("find_range / scan", "BM_Scan/uniform10/find_range/bitplane", "BM_Scan/uniform10/find_range/dense", r.cpu_ns),
        ("find_range / AVX2", "BM_Scan/uniform10/find_range/bitplane", "BM_Scan/uniform10/find_range/dense_avx2", r.cpu_ns),
        ("AND 10-bit / loop", "BM_Bitwise/and/1", "BM_BitwiseDenseLoop/and", r.real_ns),
        ("XOR 10-bit / loop", "BM_Bitwise/xor/1", "BM_BitwiseDenseLoop/xor", r.real_ns),
        ("bitset AND 1% / CRoaring", "BM_BitsetAnd/100", "BM_RoaringAnd/100", r.cpu_ns),
        ("bitset OR 1% / CRoaring", "BM_BitsetOr/100", "BM_RoaringOr/100", r.cpu_ns),
        ("bitset AND 50% / CRoaring", "BM_BitsetAnd/5000", "BM_RoaringAnd/5000", r.cpu_ns),
    ]:
        x = bench_report.ratio(time(base), time(ours))
        if x is not None:
            ops.append((label, x))
    if not widths and not ops:
        print("no dot or operation benchmarks in " + argv[1], file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory() as tmp:
        if widths:
            data = os.path.join(tmp, "widths.dat")
            with open(data, "w") as f:
                f.writelines(f"{k} {x}\n" for k, x in widths)
            gnuplot(f"""
set terminal pngcairo noenhanced size 900,420 font 'sans,10'
set output '{out_dir}/bench-dot-widths.png'
set title "dot of two 16M-value columns: bitplane vs AVX2 dense loop, one thread ({machine}, {when})"
set xlabel 'bits per value'
set ylabel 'speed-up (x)'
set xrange [0.5:32.5]
set yrange [0:*]
set grid ytics
set style fill solid 0.8
set boxwidth 0.7
plot '{data}' using 1:2 with boxes lc rgb '#3465a4' title 'bitplane / dense', 1 with lines dt 2 lc rgb '#cc0000' title 'parity'
""")
        if ops:
            data = os.path.join(tmp, "ops.dat")
            with open(data, "w") as f:
                f.writelines(f"{i} \"{label}\" {x}\n" for i, (label, x) in enumerate(ops))
            gnuplot(f"""
set terminal pngcairo noenhanced size 900,460 font 'sans,10'
set output '{out_dir}/bench-operations.png'
set title "operations on compressed 16M-value columns: speed-up over each baseline ({machine}, {when})"
set ylabel 'speed-up (x, log scale)'
set logscale y
set yrange [0.5:*]
set grid ytics
set xtics rotate by -35 left
set bmargin 8
set style fill solid 0.8
set boxwidth 0.7
plot '{data}' using 1:3:xtic(2) with boxes lc rgb '#4e9a06' notitle, \\
     '' using 1:3:(sprintf('%.1fx', $3)) with labels offset 0,0.7 notitle
""")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
