#!/usr/bin/env python3
"""Fault injection (issue #14): every write of pack, unpack and save fails once.

For each scenario, a first run under the shim (fault_shim.c, LD_PRELOAD) counts the calls that
put the output on disk (write, pwrite, writev, fsync, rename, ...); then the scenario runs once
per call and per errno (ENOSPC, EIO) with that call failing. Each failing run must exit 3 with
one message naming the output file and the system's reason, leave the previous output as it
was and leave no temporary file. A run without a fault must write the expected file.

  python3 tests/fault/fault_test.py --bitplane build/dev/tools/bitplane --shim build/dev/tests/cli/libbitplane_fault_shim.so
"""

import argparse
import errno
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cli_test  # noqa: E402  (the value shapes the CLI tests use)

DNA_FIXTURES = cli_test.DNA_FIXTURES
EXIT_IO = cli_test.EXIT_IO
PREVIOUS = b"the previous output"


def values_bytes(count, seed):
    """Runs of shapes (cli_test.mixed_values), so that blocks differ in size."""
    return cli_test.u32_bytes(cli_test.mixed_values(count, seed))


class Runner:
    def __init__(self, bitplane, shim, work):
        self.bitplane, self.shim, self.work = bitplane, shim, work
        self.failures = []
        self.runs = 0

    def run(self, args, stdin, fault_at=0, fault_errno=errno.ENOSPC, count_path=None):
        env = dict(os.environ, LD_PRELOAD=self.shim, BITPLANE_FAULT_AT=str(fault_at),
                   BITPLANE_FAULT_ERRNO=str(fault_errno))
        if count_path:
            env["BITPLANE_FAULT_COUNT"] = count_path
        self.runs += 1
        return subprocess.run([self.bitplane, "-q", *args], input=stdin, capture_output=True, env=env, timeout=120)

    def check(self, name, args, out, stdin=None, expected=None):
        count_path = os.path.join(self.work, "count")
        with open(out, "wb") as f:
            f.write(PREVIOUS)
        r = self.run(args, stdin, count_path=count_path)
        if r.returncode != 0:
            self.failures.append("%s: exit %d without a fault: %s" % (name, r.returncode, r.stderr.decode()))
            return 0
        with open(count_path) as f:
            calls = int(f.read())
        if expected is not None:
            with open(out, "rb") as f:
                if f.read() != expected:
                    self.failures.append("%s: wrong output without a fault" % name)
        if calls < 2:
            self.failures.append("%s: only %d counted calls (is the shim loaded?)" % (name, calls))
        for at in range(1, calls + 1):
            for code in (errno.ENOSPC, errno.EIO):
                with open(out, "wb") as f:
                    f.write(PREVIOUS)
                r = self.run(args, stdin, fault_at=at, fault_errno=code)
                err = r.stderr.decode(errors="replace")
                where = "%s: call %d of %d failing with %s" % (name, at, calls, errno.errorcode[code])
                if r.returncode != EXIT_IO:
                    self.failures.append("%s: exit %d, stderr %r" % (where, r.returncode, err))
                if out not in err or os.strerror(code) not in err or not err.startswith("bitplane: "):
                    self.failures.append("%s: message %r does not name %s and %r" % (where, err, out, os.strerror(code)))
                with open(out, "rb") as f:
                    if f.read() != PREVIOUS:
                        self.failures.append("%s: the previous output was changed" % where)
                left = [f for f in os.listdir(os.path.dirname(out)) if ".partial-" in f]
                if left:
                    self.failures.append("%s: left %s" % (where, left))
                    for f in left:
                        os.unlink(os.path.join(os.path.dirname(out), f))
        print("%-28s %3d calls, each failed with ENOSPC and EIO" % (name, calls))
        return calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bitplane", required=True)
    parser.add_argument("--shim", required=True)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="bitplane-fault-")
    try:
        runner = Runner(os.path.abspath(options.bitplane), os.path.abspath(options.shim), work)
        p = lambda name: os.path.join(work, name)
        raw = values_bytes(3 << 20, 1)  # 12 MiB: two windows of pack's mapped input
        with open(p("a.u32"), "wb") as f:
            f.write(raw)
        with open(p("b.u32"), "wb") as f:
            f.write(values_bytes(3 << 20, 2))
        csv = "v\n" + "".join("%d\n" % (i * 7 % 100003) for i in range(300000))
        with open(p("a.csv"), "w") as f:
            f.write(csv)
        fasta = os.path.join(DNA_FIXTURES, "pseudopig_softmasked.fa")
        for name in ("a", "b"):
            r = subprocess.run([runner.bitplane, "-q", "pack", p(name + ".u32"), "-o", p(name + ".bp")])
            assert r.returncode == 0
        assert subprocess.run([runner.bitplane, "-q", "pack", "--dna", fasta, "-o", p("dna.bp")]).returncode == 0
        with open(p("a.bp"), "rb") as f:
            packed = f.read()
        with open(fasta, "rb") as f:
            fasta_text = f.read()
        out = p("out")
        runner.check("pack (file, placed)", ["pack", p("a.u32"), "-o", out], out, expected=packed)
        runner.check("pack --sync", ["--sync", "pack", p("a.u32"), "-o", out], out, expected=packed)
        runner.check("pack (stdin)", ["pack", "-", "-o", out], out, stdin=raw, expected=packed)
        runner.check("pack --csv", ["pack", p("a.csv"), "--csv", "v", "-o", out], out)
        runner.check("pack --dna", ["pack", "--dna", fasta, "-o", out], out)
        runner.check("pack --dna --modeled", ["pack", "--dna", "--modeled", fasta, "-o", out], out)
        runner.check("unpack", ["unpack", p("a.bp"), "-o", out], out, expected=raw)
        runner.check("unpack --csv", ["unpack", "--csv", p("a.bp"), "-o", out], out)
        runner.check("unpack (DNA)", ["unpack", p("dna.bp"), "-o", out], out, expected=fasta_text)
        runner.check("xor (save)", ["xor", p("a.bp"), p("b.bp"), "-o", out], out)
        print("%d runs" % runner.runs)
        for failure in runner.failures:
            print("FAIL " + failure)
        return 1 if runner.failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
