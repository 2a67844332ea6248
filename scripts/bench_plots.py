#!/usr/bin/env python3
"""Plots for docs/benchmarks.md from a bitplane_bench JSON run (the "Operations (issue #3)"
command there), drawn by gnuplot (scripts/install-deps.sh installs it) as PNG:

  OUT/bench-dot-widths.png   dot of two 16M-value columns, bitplane against the AVX2 dense
                             loop, for every bit width 1..32 (speed-up, higher is better)
  OUT/bench-operations.png   every other operation's speed-up against its baseline

Usage: scripts/bench_plots.py RUN.json [OUT_DIR (default docs)]
Ratios come from one run (CPU time medians; bitwise ops wall time, as bench_report.py).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_report  # noqa: E402  (the loader and the same ratios as the tables)


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
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
