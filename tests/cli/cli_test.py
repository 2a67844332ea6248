#!/usr/bin/env python3
"""End-to-end tests of the bitplane program.

Each test runs the program on fixtures (tests/cli/fixtures/) or on files it generates, and
checks exit codes, messages, output files and --json output against results computed here
in Python (the oracle): sums, dot products, predicate counts and positions, element-wise
bitwise operations, popcounts per bit, and CSV columns as Python's csv module reads them.

Run one case:  python3 tests/cli/cli_test.py --bitplane build/release/tools/bitplane CliTest.test_binary_round_trip
Run them all:  python3 tests/cli/cli_test.py --bitplane build/release/tools/bitplane
CTest runs each case as its own test (tests/cli/CMakeLists.txt).
"""

import csv
import gzip
import io
import json
import os
import pty
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
DNA_FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "dna")
FASTA_FIXTURES = sorted(f for f in os.listdir(DNA_FIXTURES) if f.endswith(".fa"))
BUILTIN_GENOME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "data",
                              "lambda_phage.fa.gz")
BITPLANE = None  # set from --bitplane

EXIT_OK, EXIT_USAGE, EXIT_BAD_INPUT, EXIT_IO = 0, 1, 2, 3
COMMANDS = ["demo", "pack", "unpack", "stats", "sum", "dot", "count", "find", "and", "or", "xor", "gc"]


def u32_bytes(values):
    return struct.pack("<%dI" % len(values), *values)


def i32_bytes(values):
    return struct.pack("<%di" % len(values), *values)


def mixed_values(count, seed, signed=False):
    """Values of several shapes in runs (constant, narrow, sparse, sorted, full range)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        run = min(count - len(out), rng.randint(1, 5000))
        shape = rng.randrange(5)
        if shape == 0:
            c = rng.randrange(1 << 32)
            out += [c] * run
        elif shape == 1:
            out += [rng.randrange(1 << 10) for _ in range(run)]
        elif shape == 2:
            out += [rng.randrange(1 << 20) if rng.random() < 0.1 else 0 for _ in range(run)]
        elif shape == 3:
            start = rng.randrange(1 << 31)
            out += [(start + 1000 * i + rng.randint(-9, 9)) % (1 << 32) for i in range(run)]
        else:
            out += [rng.randrange(1 << 32) for _ in range(run)]
    if signed:
        out = [v - (1 << 32) if v >= 1 << 31 else v for v in out]
    return out


def to_bits(v):
    return v & 0xFFFFFFFF


# ---- DNA oracles: FASTA read here, independently of the library -----------------------------
IUPAC = {"A": "A", "C": "C", "G": "G", "T": "T", "R": "AG", "Y": "CT", "S": "CG", "W": "AT", "K": "GT",
         "M": "AC", "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG", "N": "ACGT", "-": ""}


def read_fasta(path):
    """[(header, letters)] of a FASTA file (line ends stripped, letters as written)."""
    records = []
    with open(path, "rb") as f:
        for line in f.read().decode("ascii").splitlines():
            if line.startswith(">"):
                records.append([line[1:], ""])
            else:
                records[-1][1] += line
    return [(h, s) for h, s in records]


def record_name(header, index):
    name = header.split(" ")[0].split("\t")[0]
    return name if name else "#%d" % (index + 1)


def find_positions(letters, pattern):
    """Overlapping matches; case ignored; a text letter that is not ACGT matches nothing."""
    text = letters.upper()
    sets = [IUPAC[c] for c in pattern.upper()]
    k = len(sets)
    return [i for i in range(len(text) - k + 1) if all(text[i + j] in sets[j] for j in range(k))]


def twobit_size(records):
    """UCSC .2bit (faToTwoBit, version 0): header, index, then per record its N and mask blocks."""
    def runs(flags):
        count, previous = 0, False
        for flag in flags:
            if flag and not previous:
                count += 1
            previous = flag
        return count
    size = 16
    for header, letters in records:
        # The library's rule (fasta.hpp twobit_bytes): the header up to the first space or tab,
        # so "> pig1" has an empty name (faToTwoBit may skip the leading space: 4 bytes here).
        name = header.split(" ")[0].split("\t")[0]
        size += 1 + len(name) + 4
        n_blocks = runs(c.upper() not in "ACGT" for c in letters)
        mask_blocks = runs(c.islower() for c in letters)
        size += 4 + 4 + 8 * n_blocks + 4 + 8 * mask_blocks + 4 + (len(letters) + 3) // 4
    return size


class CliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bitplane-cli-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    # ---- helpers ------------------------------------------------------------------------
    def path(self, name):
        return os.path.join(self.dir, name)

    def run_cli(self, *args, stdin=None, env=None, expect=None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        r = subprocess.run([BITPLANE, *args], input=stdin, capture_output=True, env=full_env, timeout=110)
        r.out = r.stdout.decode(errors="replace")
        r.err = r.stderr.decode(errors="replace")
        if expect is not None:
            self.assertEqual(r.returncode, expect, "bitplane %s\nstdout: %s\nstderr: %s" % (" ".join(args), r.out, r.err))
        return r

    def expect_failure(self, code, args, *message_parts, stdin=None, env=None):
        """Runs a failing command: exit `code`, nothing on stdout, one 'bitplane: ...' line
        on stderr holding every part of the message."""
        r = self.run_cli(*args, stdin=stdin, env=env, expect=code)
        self.assertEqual(r.out, "")
        for part in message_parts:
            self.assertIn(part, r.err)
        return r

    def write(self, name, data):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def read(self, p):
        with open(p, "rb") as f:
            return f.read()

    def pack_values(self, name, values, signed=False):
        raw = self.write(name + (".i32" if signed else ".u32"), i32_bytes(values) if signed else u32_bytes(values))
        bp = self.path(name + ".bp")
        self.run_cli("pack", raw, "-o", bp, "--type", "i32" if signed else "u32", expect=EXIT_OK)
        return bp

    def json_of(self, *args):
        r = self.run_cli(*args, "--json", expect=EXIT_OK)
        return json.loads(r.out)

    def assert_no_leftovers(self, name):
        """Neither `name` nor a temporary file of it exists in the test directory."""
        self.assertFalse(os.path.exists(self.path(name)))
        self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])

    # ---- help, usage --------------------------------------------------------------------
    def test_help_for_every_command(self):
        r = self.run_cli("--help", expect=EXIT_OK)
        for command in COMMANDS:
            self.assertRegex(r.out, r"\n  %s " % command)
        self.assertIn("Exit codes: 0 ok, 1 usage error, 2 bad input, 3 I/O error", r.out)
        for command in COMMANDS:
            r = self.run_cli(command, "--help", expect=EXIT_OK)
            self.assertIn("Usage: bitplane %s" % command, r.out)

    def test_usage_errors(self):
        self.assertEqual(self.run_cli().returncode, EXIT_USAGE)
        r = self.run_cli("frobnicate", expect=EXIT_USAGE)
        self.assertIn("frobnicate", r.err)
        r = self.run_cli("pack", "x.u32", expect=EXIT_USAGE)  # no -o
        self.assertIn("--output is required", r.err)
        self.run_cli("pack", "x.u32", "-o", "y.bp", "--type", "u64", expect=EXIT_USAGE)
        self.run_cli("pack", "x.u32", "-o", "y.bp", "--null-as-zero", expect=EXIT_USAGE)  # needs --csv
        self.run_cli("sum", expect=EXIT_USAGE)
        self.run_cli("--threads", "0", "sum", "x.bp", expect=EXIT_USAGE)
        r = self.run_cli("--version", expect=EXIT_OK)
        self.assertIn("bitplane", r.out)

    # ---- pack / unpack: binary ----------------------------------------------------------
    def test_binary_round_trip(self):
        for signed in (False, True):
            for count in (0, 1, 2047, 2048, 2049, 70001):
                values = mixed_values(count, count, signed)
                raw = i32_bytes(values) if signed else u32_bytes(values)
                name = "v%d%s" % (count, "s" if signed else "u")
                bp = self.pack_values(name, values, signed)
                back = self.path(name + ".back")
                self.run_cli("unpack", bp, "-o", back, expect=EXIT_OK)
                self.assertEqual(self.read(back), raw, "%s round trip" % name)
                # The packed file holds the values: their exact sum says so independently.
                self.assertEqual(self.run_cli("sum", bp, expect=EXIT_OK).out, "%d\n" % sum(values))

    def test_pack_json_and_summary(self):
        values = [i % 1000 for i in range(100000)]
        raw = self.write("a.u32", u32_bytes(values))
        out = self.path("a.bp")
        j = self.json_of("pack", raw, "-o", out)
        self.assertEqual(j["values"], 100000)
        self.assertEqual(j["type"], "uint32")
        self.assertEqual(j["format"], "binary")
        self.assertEqual(j["input_bytes"], 400000)
        self.assertEqual(j["output_bytes"], os.path.getsize(out))
        self.assertAlmostEqual(j["bits_per_value"], 8 * os.path.getsize(out) / 100000)
        self.assertLess(j["bits_per_value"], 10.5)  # 10-bit values
        r = self.run_cli("pack", raw, "-o", out, expect=EXIT_OK)
        self.assertIn("100000 uint32 values", r.out)
        self.assertEqual(r.err, "")  # no progress bar when stderr is not a terminal
        self.assertEqual(self.run_cli("-q", "pack", raw, "-o", out, expect=EXIT_OK).out, "")

    def test_pack_gzip_and_stdin(self):
        values = mixed_values(30000, 7)
        raw = u32_bytes(values)
        gz = self.write("a.u32.gz", gzip.compress(raw))
        self.run_cli("pack", gz, "-o", self.path("gz.bp"), expect=EXIT_OK)
        self.run_cli("pack", "-", "-o", self.path("stdin.bp"), stdin=raw, expect=EXIT_OK)
        self.run_cli("pack", "-", "-o", self.path("stdin_gz.bp"), stdin=gzip.compress(raw), expect=EXIT_OK)
        plain = self.pack_values("plain", values)
        for name in ("gz.bp", "stdin.bp", "stdin_gz.bp"):
            self.assertEqual(self.read(self.path(name)), self.read(plain), name)
        r = self.run_cli("unpack", plain, "-o", "-", expect=EXIT_OK)
        self.assertEqual(r.stdout, raw)

    def test_same_file_for_every_thread_count(self):
        values = mixed_values(300000, 11)
        raw = self.write("a.u32", u32_bytes(values))
        files = []
        for threads in ("1", "2", "3"):
            out = self.path("t%s.bp" % threads)
            self.run_cli("--threads", threads, "pack", raw, "-o", out, expect=EXIT_OK)
            files.append(self.read(out))
        self.assertEqual(files[0], files[1])
        self.assertEqual(files[0], files[2])

    def test_binary_input_errors(self):
        odd = self.write("odd.u32", b"\x01\x02\x03\x04\x05\x06")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", odd, "-o", self.path("o.bp")], odd + ":",
                            "6 bytes is not a whole number of 4-byte uint32 values (2 bytes left over)")
        self.assert_no_leftovers("o.bp")
        missing = self.path("missing.u32")
        self.expect_failure(EXIT_IO, ["pack", missing, "-o", self.path("o.bp")], missing + ": cannot open for reading")
        self.expect_failure(EXIT_IO, ["pack", self.dir, "-o", self.path("o.bp")], self.dir + ": is a directory")
        good = self.write("good.u32", u32_bytes([1, 2, 3]))
        nowhere = os.path.join(self.dir, "no", "such", "dir", "o.bp")
        self.expect_failure(EXIT_IO, ["pack", good, "-o", nowhere], nowhere + ": cannot create a temporary file")
        broken = self.write("broken.u32.gz", gzip.compress(u32_bytes(list(range(50000))))[:-100])
        self.expect_failure(EXIT_BAD_INPUT, ["pack", broken, "-o", self.path("o.bp")], broken + ": gzip data is corrupt or truncated")
        self.assert_no_leftovers("o.bp")

    # ---- DNA: pack --dna, unpack, stats, gc, find --------------------------------------------
    def pack_fasta(self, fixture, modeled=False):
        bp = self.path(fixture + (".m" if modeled else "") + ".bp")
        self.run_cli("pack", "--dna", os.path.join(DNA_FIXTURES, fixture), "-o", bp,
                     *(["--modeled"] if modeled else []), expect=EXIT_OK)
        return bp

    def test_dna_round_trip(self):
        for fixture in FASTA_FIXTURES:
            source = os.path.join(DNA_FIXTURES, fixture)
            records = read_fasta(source)
            for modeled in (False, True):
                bp = self.pack_fasta(fixture, modeled)
                back = self.path(fixture + ".back")
                self.run_cli("unpack", bp, "-o", back, expect=EXIT_OK)
                self.assertEqual(self.read(back), self.read(source), "%s modeled=%s" % (fixture, modeled))
                self.assertEqual(self.run_cli("unpack", bp, "-o", "-", expect=EXIT_OK).stdout, self.read(source))
                j = self.json_of("unpack", bp, "-o", back)
                self.assertEqual((j["format"], j["records"], j["output_bytes"]), ("fasta", len(records), os.path.getsize(source)))
            # gzip and stdin input give the same file as the plain one.
            gz = self.write(fixture + ".gz", gzip.compress(self.read(source)))
            self.run_cli("pack", "--dna", gz, "-o", self.path("gz.bp"), expect=EXIT_OK)
            self.run_cli("pack", "--dna", "-", "-o", self.path("stdin.bp"), stdin=self.read(source), expect=EXIT_OK)
            plain = self.read(self.path(fixture + ".bp"))
            self.assertEqual(self.read(self.path("gz.bp")), plain, fixture)
            self.assertEqual(self.read(self.path("stdin.bp")), plain, fixture)
        self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])

    def test_dna_pack_summary(self):
        source = os.path.join(DNA_FIXTURES, "chr20_n_boundary.fa")
        letters = sum(len(s) for _, s in read_fasta(source))
        out = self.path("c.bp")
        for modeled in (False, True):
            j = self.json_of("pack", "--dna", source, "-o", out, *(["--modeled"] if modeled else []))
            self.assertEqual(j["format"], "dna-modeled" if modeled else "dna")
            self.assertEqual((j["records"], j["letters"]), (1, letters))
            self.assertEqual(j["input_bytes"], os.path.getsize(source))
            self.assertEqual(j["output_bytes"], os.path.getsize(out))
            self.assertAlmostEqual(j["bits_per_base"], 8 * os.path.getsize(out) / letters)
            self.assertEqual(j["twobit_bytes"], twobit_size(read_fasta(source)))
        r = self.run_cli("pack", "--dna", source, "-o", out, expect=EXIT_OK)
        self.assertIn("1 record, %d letters" % letters, r.out)

    def test_dna_errors(self):
        bad = self.write("bad.fa", b">one\nACGT\n>two second\nACGT\nACXT\n")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", "--dna", bad, "-o", self.path("o.bp")], bad + ":",
                            "record 2 ('two')", "line 5, column 3", "'X'")
        self.assert_no_leftovers("o.bp")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", "--dna", self.write("n.fa", b"ACGT\n"), "-o", self.path("o.bp")],
                            "n.fa:", "line 1")
        reads = os.path.join(DNA_FIXTURES, "bowtie2_reads.fq")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", "--dna", reads, "-o", self.path("o.bp")], reads + ":",
                            "packing FASTQ is not supported yet")
        self.assert_no_leftovers("o.bp")
        missing = self.path("missing.fa")
        self.expect_failure(EXIT_IO, ["pack", "--dna", missing, "-o", self.path("o.bp")], missing + ": cannot open")
        self.run_cli("pack", "x.u32", "-o", self.path("o.bp"), "--modeled", expect=EXIT_USAGE)  # needs --dna
        bp = self.pack_fasta("lambda_head.fa")
        self.expect_failure(EXIT_BAD_INPUT, ["sum", bp], bp + ":", "a packed DNA file", "gc")
        self.expect_failure(EXIT_USAGE, ["unpack", bp, "--csv", "-o", self.path("o.txt")], "packed DNA file")
        self.expect_failure(EXIT_USAGE, ["find", bp, "--eq", "1"], "give a PATTERN")
        self.expect_failure(EXIT_USAGE, ["find", bp], "PATTERN")
        self.expect_failure(EXIT_BAD_INPUT, ["find", bp, "ACXT"], "'X'")
        column = self.pack_values("col", [1, 2, 3])
        self.expect_failure(EXIT_BAD_INPUT, ["gc", column], column + ":", "not a packed DNA file")
        self.expect_failure(EXIT_USAGE, ["find", column, "ACGT"], "PATTERN is for packed DNA files")
        data = self.read(bp)
        for name, broken in (("short.bp", data[:-5]), ("flipped.bp", data[:70] + bytes([data[70] ^ 1]) + data[71:])):
            p = self.write(name, broken)
            self.expect_failure(EXIT_BAD_INPUT, ["unpack", p, "-o", self.path("o.fa")], p + ":")
            self.expect_failure(EXIT_BAD_INPUT, ["stats", p], p + ":")
        self.assert_no_leftovers("o.fa")

    def test_dna_stats_json(self):
        for fixture in FASTA_FIXTURES:
            source = os.path.join(DNA_FIXTURES, fixture)
            records = read_fasta(source)
            letters = "".join(s for _, s in records)
            for modeled in (False, True):
                bp = self.pack_fasta(fixture, modeled)
                j = self.json_of("stats", bp)
                self.assertEqual((j["format"], j["mode"]), ("dna", "modeled" if modeled else "planes"))
                self.assertEqual((j["records"], j["letters"]), (len(records), len(letters)))
                self.assertEqual(j["file_bytes"], os.path.getsize(bp))
                self.assertEqual(j["fasta_bytes"], os.path.getsize(source))
                self.assertAlmostEqual(j["bits_per_base"], 8 * os.path.getsize(bp) / len(letters))
                self.assertEqual(j["twobit_bytes"], twobit_size(records), fixture)
                self.assertEqual(j["blocks"], (len(letters) + 2047) // 2048)
                ones = [p["letters_set"] for p in j["planes"]]
                self.assertEqual(ones[2], sum(c.islower() for c in letters), fixture)
                self.assertEqual(ones[3], sum(c.upper() not in "ACGT" for c in letters), fixture)
                self.assertEqual([r["letters"] for r in j["record_list"]], [len(s) for _, s in records])
                self.assertEqual([r["name"] for r in j["record_list"]],
                                 [record_name(h, i) for i, (h, _) in enumerate(records)])
            r = self.run_cli("stats", bp, expect=EXIT_OK)
            self.assertIn("packed DNA (modeled mode), %d record" % len(records), r.out)
            self.assertIn("UCSC 2bit", r.out)

    def test_dna_gc(self):
        for fixture in FASTA_FIXTURES:
            records = read_fasta(os.path.join(DNA_FIXTURES, fixture))
            bp = self.pack_fasta(fixture, modeled=fixture.startswith("v"))
            j = self.json_of("gc", bp)
            expected = []
            for i, (header, s) in enumerate(records):
                u = s.upper()
                acgt = sum(u.count(b) for b in "ACGT")
                expected.append({"name": record_name(header, i), "letters": len(s),
                                 "A": u.count("A"), "C": u.count("C"), "G": u.count("G"), "T": u.count("T"),
                                 "N": u.count("N"), "gaps": u.count("-"),
                                 "ambiguous": sum(u.count(c) for c in "RYSWKMBDHV"),
                                 "soft_masked": sum(c.islower() for c in s),
                                 "gc_content": (u.count("C") + u.count("G")) / acgt if acgt else 0.0})
            self.assertEqual(len(j["records"]), len(expected))
            for got, want in zip(j["records"], expected):
                for key, value in want.items():
                    if key == "gc_content":
                        self.assertAlmostEqual(got[key], value, msg=fixture)
                    else:
                        self.assertEqual(got[key], value, "%s %s" % (fixture, key))
            self.assertEqual(j["total"]["letters"], sum(len(s) for _, s in records))
            self.assertEqual(j["total"]["G"], sum(e["G"] for e in expected))
            r = self.run_cli("gc", bp, expect=EXIT_OK)
            self.assertIn("GC%", r.out)
            self.assertIn("%.3f" % (100 * expected[0]["gc_content"]), r.out)

    def test_dna_find(self):
        for fixture in FASTA_FIXTURES:
            records = read_fasta(os.path.join(DNA_FIXTURES, fixture))
            bp = self.pack_fasta(fixture, modeled=fixture.startswith("c"))
            s0 = records[0][1]
            patterns = ["GATC", "acg", "ACNT", "RYG", "TTTT", s0[100:112], "A" * 40]
            for pattern in patterns:
                expected = [(i, p) for i, (_, s) in enumerate(records) for p in find_positions(s, pattern)]
                j = self.json_of("find", bp, pattern)
                self.assertEqual(j["count"], len(expected), "%s %s" % (fixture, pattern))
                self.assertEqual([(m["record"], m["position"]) for m in j["matches"]], expected)
                self.assertFalse(j["truncated"])
                r = self.run_cli("find", bp, pattern, expect=EXIT_OK)
                self.assertEqual(r.out, "".join("%s\t%d\n" % (record_name(records[i][0], i), p) for i, p in expected))
            self.assertGreater(len(find_positions(s0, s0[100:112])), 0)
        bp = self.pack_fasta("pseudopig_softmasked.fa")
        everything = find_positions(read_fasta(os.path.join(DNA_FIXTURES, "pseudopig_softmasked.fa"))[0][1], "NN")
        j = self.json_of("find", bp, "NN", "--limit", "3")
        self.assertEqual((j["count"], len(j["matches"]), j["truncated"]), (len(everything), 3, True))

    # ---- pack / unpack: CSV -------------------------------------------------------------
    def csv_column(self, fixture, column, delimiter=","):
        """The column as Python's csv module reads the file (blank lines skipped)."""
        with open(os.path.join(FIXTURES, fixture), newline="") as f:
            rows = [row for row in csv.reader(f, delimiter=delimiter) if row]
        header = rows[0]
        index = header.index(column)
        return [int(row[index].strip()) for row in rows[1:]]

    def unpacked_text(self, bp):
        return self.run_cli("unpack", bp, "--csv", "-o", "-", expect=EXIT_OK).out

    def test_csv_columns_match_python_csv(self):
        orders = os.path.join(FIXTURES, "orders.csv")
        for column, by, signed in (("order_id", "order_id", False), ("amount, cents", "3", True),
                                   ("quantity", "quantity", False)):
            out = self.path("c.bp")
            args = ["pack", orders, "--csv", by, "-o", out] + (["--type", "i32"] if signed else [])
            j = self.json_of(*args)
            expected = self.csv_column("orders.csv", column)
            self.assertEqual(j["column"], column)
            self.assertEqual(j["values"], len(expected))
            self.assertEqual(j["format"], "csv")
            self.assertEqual(self.unpacked_text(out), "".join("%d\n" % v for v in expected))

    def test_csv_tab_crlf_and_headerless(self):
        tsv = os.path.join(FIXTURES, "readings.tsv")
        out = self.path("t.bp")
        self.run_cli("pack", tsv, "--csv", "temp_c", "--delimiter", "tab", "--type", "i32", "-o", out, expect=EXIT_OK)
        self.assertEqual(self.unpacked_text(out), "-12\n3\n27\n")
        self.assertEqual(self.run_cli("sum", out, expect=EXIT_OK).out, "18\n")
        plain = os.path.join(FIXTURES, "no_header.csv")
        j = self.json_of("pack", plain, "--csv", "1", "-o", out)
        self.assertEqual(j["column"], "column 1")
        self.assertEqual(self.unpacked_text(out), "17\n4000000000\n0\n4294967295\n")
        self.run_cli("pack", plain, "--csv", "1", "--header", "-o", out, expect=EXIT_OK)
        self.assertEqual(self.unpacked_text(out), "4000000000\n0\n4294967295\n")

    def test_csv_round_trip_with_header(self):
        values = mixed_values(10000, 3, signed=True)
        text = "reading\n" + "".join("%d\n" % v for v in values)
        src = self.write("r.csv", text.encode())
        bp = self.path("r.bp")
        self.run_cli("pack", src, "--csv", "reading", "--type", "i32", "-o", bp, expect=EXIT_OK)
        back = self.path("back.csv")
        self.run_cli("unpack", bp, "--csv", "--header", "reading", "-o", back, expect=EXIT_OK)
        self.assertEqual(self.read(back), text.encode())
        gz = self.write("r.csv.gz", gzip.compress(text.encode()))
        self.run_cli("pack", gz, "--csv", "1", "--type", "i32", "-o", self.path("gz.bp"), expect=EXIT_OK)
        self.assertEqual(self.read(self.path("gz.bp")), self.read(bp))

    def test_csv_errors_name_line_and_column(self):
        out = self.path("o.bp")
        fx = lambda name: os.path.join(FIXTURES, name)
        self.expect_failure(EXIT_BAD_INPUT, ["pack", fx("bad_number.csv"), "--csv", "qty", "-o", out],
                            "bitplane: %s: line 3, column 2 (\"qty\"): \"12x\" is not an integer" % fx("bad_number.csv"))
        self.expect_failure(EXIT_BAD_INPUT, ["pack", fx("empty_cell.csv"), "--csv", "qty", "-o", out],
                            "%s: line 4, column 2 (\"qty\"): empty cell" % fx("empty_cell.csv"), "--null-as-zero")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", fx("short_row.csv"), "--csv", "2", "-o", out],
                            "%s: line 3, column 2 (\"qty\"): the record has 1 field, no column 2" % fx("short_row.csv"))
        self.expect_failure(EXIT_BAD_INPUT, ["pack", fx("open_quote.csv"), "--csv", "qty", "-o", out],
                            "line 3, column 2 (\"qty\"): a quoted field is not closed")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", fx("orders.csv"), "--csv", "amount, cents", "-o", out],
                            "line 4, column 3 (\"amount, cents\"): \"-75\" is negative", "--type i32")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", fx("orders.csv"), "--csv", "price", "-o", out],
                            "line 1: no column named \"price\" in the header (\"order_id\", \"customer\"")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", fx("no_header.csv"), "--csv", "1", "--type", "i32", "-o", out],
                            "line 2, column 1: \"4000000000\" is outside the int32 range")
        self.expect_failure(EXIT_USAGE, ["pack", fx("orders.csv"), "--csv", "0", "-o", out], "numbered from 1")
        self.expect_failure(EXIT_USAGE, ["pack", fx("orders.csv"), "--csv", "qty", "--no-header", "-o", out], "no header")
        self.expect_failure(EXIT_USAGE, ["pack", fx("orders.csv"), "--csv", "1", "--delimiter", "ab", "-o", out],
                            "--delimiter must be one character")
        self.assert_no_leftovers("o.bp")
        # --null-as-zero turns the empty cell into 0.
        self.run_cli("pack", fx("empty_cell.csv"), "--csv", "qty", "--null-as-zero", "-o", out, expect=EXIT_OK)
        self.assertEqual(self.unpacked_text(out), "5\n7\n0\n1\n")

    # ---- unpack / load errors ------------------------------------------------------------
    def test_unpack_rejects_bad_files(self):
        bp = self.pack_values("a", list(range(10000)))
        data = self.read(bp)
        out = self.path("out.u32")
        not_bp = self.write("not.bp", b"id,value\n" * 20)
        self.expect_failure(EXIT_BAD_INPUT, ["unpack", not_bp, "-o", out], not_bp + ": not a bitplane file (bad magic)")
        flipped = bytearray(data)
        flipped[len(data) // 2] ^= 0x10
        f = self.write("flipped.bp", bytes(flipped))
        self.expect_failure(EXIT_BAD_INPUT, ["unpack", f, "-o", out], f + ": checksum mismatch")
        t = self.write("truncated.bp", data[:-7])
        self.expect_failure(EXIT_BAD_INPUT, ["unpack", t, "-o", out], t + ": file is")
        e = self.write("empty.bp", b"")
        self.expect_failure(EXIT_BAD_INPUT, ["unpack", e, "-o", out], e + ": truncated file header")
        missing = self.path("missing.bp")
        self.expect_failure(EXIT_IO, ["unpack", missing, "-o", out], missing + ": cannot open for reading")
        self.expect_failure(EXIT_USAGE, ["unpack", bp, "-o", "-", "--json"], "--json and -o -")
        self.assert_no_leftovers("out.u32")
        for command in (["sum"], ["stats"], ["count", "--eq", "1"], ["find", "--eq", "1"]):
            self.expect_failure(EXIT_BAD_INPUT, [command[0], f] + command[1:], f + ": checksum mismatch")

    # ---- stats ----------------------------------------------------------------------------
    def test_stats_json(self):
        rng = random.Random(5)
        # Bit 1 copies bit 0, bit 2 is its complement, bits 3-9 random, the rest zero.
        values = []
        for _ in range(5000):
            b0 = rng.randrange(2)
            values.append(b0 | (b0 << 1) | ((1 - b0) << 2) | (rng.randrange(128) << 3))
        bp = self.pack_values("s", values)
        j = self.json_of("stats", bp)
        blocks = (len(values) + 2047) // 2048
        self.assertEqual(j["values"], len(values))
        self.assertEqual(j["type"], "uint32")
        self.assertEqual(j["file_bytes"], os.path.getsize(bp))
        self.assertEqual(j["raw_bytes"], 4 * len(values))
        self.assertLess(j["encoded_bytes"], j["file_bytes"])
        self.assertAlmostEqual(j["bits_per_value"], 8 * os.path.getsize(bp) / len(values))
        self.assertEqual(j["blocks"]["count"], blocks)
        self.assertEqual(sum(j["blocks"]["by_transform"].values()), blocks)
        self.assertEqual(sum(j["blocks"]["by_layout"].values()), blocks)
        per_plane = j["planes"]["per_plane"]
        self.assertEqual([p["plane"] for p in per_plane], list(range(32)))
        for p in per_plane:
            self.assertEqual(sum(v for k, v in p.items() if k != "plane"), blocks)
        for plane in range(10, 32):
            self.assertEqual(per_plane[plane]["zero"], blocks)
        self.assertEqual(sum(j["planes"]["by_encoding"].values()), 32 * blocks)
        sim = j["similarity"]
        ones = [sum((v >> b) & 1 for v in values) for b in range(32)]
        self.assertEqual(sim["ones"], ones)
        for i in range(32):
            for k in range(32):
                expected = 0 if i == k else sum(((v >> i) ^ (v >> k)) & 1 for v in values)
                self.assertEqual(sim["hamming"][i][k], expected, (i, k))
                self.assertAlmostEqual(sim["agreement"][i][k], 1 - expected / len(values))
        self.assertEqual(sim["agreement"][0][1], 1.0)
        self.assertEqual(sim["agreement"][0][2], 0.0)

    def test_stats_text_and_plot(self):
        bp = self.pack_values("t", [i * 1000 + (i % 7) for i in range(20000)])
        r = self.run_cli("stats", bp, expect=EXIT_OK)
        self.assertIn("%s: 20000 uint32 values in 10 blocks" % bp, r.out)
        self.assertIn("bits/value", r.out)
        self.assertIn("similarity of the value planes", r.out)
        png = self.path("t.png")
        if shutil.which("gnuplot") is None:
            self.fail("gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)")
        self.run_cli("stats", bp, "--plot", png, expect=EXIT_OK)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(png), 5000)
        # Without gnuplot on PATH: an I/O error naming the plot file, and no PNG left behind.
        empty_path = self.path("empty-bin")
        os.mkdir(empty_path)
        self.expect_failure(EXIT_IO, ["stats", bp, "--plot", self.path("n.png")], self.path("n.png") + ": cannot run gnuplot",
                            env={"PATH": empty_path})
        self.assert_no_leftovers("n.png")

    def test_stats_plot_runs_nothing_from_the_file_name(self):
        # Issue #14, finding 2: a line feed in the input's name ended the gnuplot string of the
        # title, and gnuplot ran the next line ("!cmd" is a shell command).
        if shutil.which("gnuplot") is None:
            self.fail("gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)")
        marker = self.path("PWNED")  # the shell expands $BITPLANE_TEST_MARKER: no '/' in the name
        name = "x\n!touch \"$BITPLANE_TEST_MARKER\"\n#'`touch \"$BITPLANE_TEST_MARKER\"`'.bp"
        bp = self.pack_values("plain", [i % 1000 for i in range(5000)])
        hostile = self.path(name)
        os.rename(bp, hostile)
        png = self.path("p.png")
        self.run_cli("stats", hostile, "--plot", png, expect=EXIT_OK, env={"BITPLANE_TEST_MARKER": marker})
        self.assertFalse(os.path.exists(marker), "gnuplot ran a command taken from the file name")
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    # ---- operations ----------------------------------------------------------------------
    def test_sum_and_dot(self):
        for signed in (False, True):
            a = mixed_values(50000, 21, signed)
            b = mixed_values(50000, 22, signed)
            pa, pb = self.pack_values("a", a, signed), self.pack_values("b", b, signed)
            self.assertEqual(self.run_cli("sum", pa, expect=EXIT_OK).out, "%d\n" % sum(a))
            j = self.json_of("sum", pa)
            self.assertEqual(int(j["sum"]), sum(a))  # a decimal string: exact beyond 64 bits
            self.assertEqual(j["values"], 50000)
            dot = sum(x * y for x, y in zip(a, b))
            self.assertEqual(self.run_cli("dot", pa, pb, expect=EXIT_OK).out, "%d\n" % dot)
            self.assertEqual(int(self.json_of("dot", pa, pb)["dot"]), dot)
        # A sum that does not fit 64 bits: 2^20 values of 2^32 - 1.
        big = self.pack_values("big", [0xFFFFFFFF] * (1 << 20))
        self.assertEqual(int(self.json_of("sum", big)["sum"]), 0xFFFFFFFF << 20)

    def test_count_and_find(self):
        predicates = [("--eq", lambda v, x: v == x), ("--ne", lambda v, x: v != x), ("--lt", lambda v, x: v < x),
                      ("--le", lambda v, x: v <= x), ("--gt", lambda v, x: v > x), ("--ge", lambda v, x: v >= x)]
        for signed in (False, True):
            values = mixed_values(20000, 31, signed)
            bp = self.pack_values("p", values, signed)
            rng = random.Random(4)
            for flag, test in predicates:
                x = values[rng.randrange(len(values))]
                expected = [i for i, v in enumerate(values) if test(v, x)]
                self.assertEqual(self.run_cli("count", bp, flag, str(x), expect=EXIT_OK).out, "%d\n" % len(expected))
                r = self.run_cli("find", bp, flag, str(x), expect=EXIT_OK)
                self.assertEqual(r.out, "".join("%d\n" % i for i in expected), flag)
            lo, hi = sorted((values[5], values[500]))
            expected = [i for i, v in enumerate(values) if lo <= v <= hi]
            j = self.json_of("count", bp, "--range", str(lo), str(hi))
            self.assertEqual(j["count"], len(expected))
            j = self.json_of("find", bp, "--range", str(lo), str(hi), "--limit", "10")
            self.assertEqual(j["count"], len(expected))
            self.assertEqual(j["positions"], expected[:10])
            self.assertEqual(j["truncated"], len(expected) > 10)

    def test_predicate_errors(self):
        bp = self.pack_values("p", [1, 2, 3])
        self.expect_failure(EXIT_USAGE, ["count", bp, "--eq", "-1"], "-1 is outside the uint32 range of " + bp)
        self.expect_failure(EXIT_USAGE, ["count", bp, "--lt", "4294967296"], "outside the uint32 range")
        self.run_cli("count", bp, expect=EXIT_USAGE)                          # no predicate
        self.run_cli("count", bp, "--eq", "1", "--lt", "2", expect=EXIT_USAGE)  # two
        self.run_cli("find", bp, "--eq", "x", expect=EXIT_USAGE)
        self.run_cli("find", bp, "--range", "1", expect=EXIT_USAGE)

    def test_bitwise_operations(self):
        a = mixed_values(40000, 41)
        b = mixed_values(40000, 42)
        pa, pb = self.pack_values("a", a), self.pack_values("b", b)
        for op, f in (("and", lambda x, y: x & y), ("or", lambda x, y: x | y), ("xor", lambda x, y: x ^ y)):
            out = self.path(op + ".bp")
            j = self.json_of(op, pa, pb, "-o", out)
            expected = [f(x, y) for x, y in zip(a, b)]
            self.assertEqual(j["values"], 40000)
            self.assertEqual(j["set_bits"], sum(bin(v).count("1") for v in expected))
            self.assertEqual(j["result_bytes"], os.path.getsize(out))
            back = self.path(op + ".u32")
            self.run_cli("unpack", out, "-o", back, expect=EXIT_OK)
            self.assertEqual(self.read(back), u32_bytes(expected), op)
        r = self.run_cli("and", pa, pb, expect=EXIT_OK)  # no -o: a summary only
        self.assertIn("40000 uint32 values", r.out)

    def test_operand_mismatches(self):
        pa = self.pack_values("a", [1, 2, 3])
        pb = self.pack_values("b", [1, 2])
        ps = self.pack_values("s", [1, 2, 3], signed=True)
        self.expect_failure(EXIT_BAD_INPUT, ["dot", pa, ps], "holds uint32 values", "holds int32 values")
        self.expect_failure(EXIT_BAD_INPUT, ["xor", pa, pb, "-o", self.path("x.bp")], pa + ", " + pb + ":")
        self.expect_failure(EXIT_BAD_INPUT, ["dot", pa, pb], "size")
        self.assert_no_leftovers("x.bp")

    # ---- lost output (issue #14 finding 6) ---------------------------------------------------
    def run_to_full(self, *args):
        """Runs with standard output on /dev/full (every write fails with ENOSPC)."""
        with open("/dev/full", "wb") as full:
            r = subprocess.run([BITPLANE, *args], stdout=full, stderr=subprocess.PIPE, timeout=110)
        r.err = r.stderr.decode(errors="replace")
        return r

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_failing_stdout_is_an_io_error(self):
        bp = self.pack_values("a", list(range(5000)))
        dna = self.pack_fasta("lambda_head.fa")
        raw = self.write("r.u32", u32_bytes([1, 2, 3]))
        commands = [["sum", bp], ["count", bp, "--lt", "100"], ["find", bp, "--lt", "4000"],
                    ["find", bp, "--lt", "10", "--json"], ["stats", bp], ["stats", dna, "--json"], ["gc", dna],
                    ["find", dna, "AC"], ["pack", raw, "-o", self.path("p.bp")], ["unpack", bp, "-o", "-"],
                    ["unpack", dna, "-o", "-"], ["dot", bp, bp]]
        for args in commands:
            r = self.run_to_full(*args)
            self.assertEqual(r.returncode, EXIT_IO, "%s: %s" % (args, r.err))
            self.assertIn("No space left on device", r.err, args)
        r = self.run_to_full("sum", bp)
        self.assertIn("bitplane: standard output: write failed", r.err)
        # The summary was lost, the packed file is whole all the same (it was committed first).
        self.assertEqual(self.run_cli("sum", self.path("p.bp"), expect=EXIT_OK).out, "6\n")
        # A command that failed already keeps its own code.
        self.assertEqual(self.run_to_full("sum", self.path("missing.bp")).returncode, EXIT_IO)
        self.assertEqual(self.run_to_full("sum", raw).returncode, EXIT_BAD_INPUT)

    # ---- bombs (issue #14 finding 5) -----------------------------------------------------------
    def test_readers_check_the_header_first(self):
        # A 1 GiB file that is not a .bp file (sparse: nothing to write) and /dev/zero, which
        # never ends, fail on their first bytes.
        big = self.path("big.bp")
        with open(big, "wb") as f:
            f.truncate(1 << 30)
        for args in (["stats", big], ["sum", big], ["unpack", big, "-o", self.path("o")], ["find", big, "ACGT"],
                     ["stats", "/dev/zero"], ["gc", "/dev/zero"], ["count", "/dev/zero", "--eq", "1"]):
            self.expect_failure(EXIT_BAD_INPUT, args, args[1] + ":", "not a bitplane file")
        # A header announcing 2^60 bytes in a short file, from a file and from a pipe.
        data = bytearray(self.read(self.pack_values("a", [1, 2, 3])))
        data[48:56] = struct.pack("<Q", 1 << 60)
        forged = self.write("forged.bp", bytes(data))
        self.expect_failure(EXIT_BAD_INPUT, ["sum", forged], forged + ":")
        self.expect_failure(EXIT_BAD_INPUT, ["sum", "-"], "-:", stdin=bytes(data))
        self.assert_no_leftovers("o")

    def test_dna_find_limit_and_windows(self):
        rng = random.Random(5)
        letters = "".join(rng.choice("ACGT") for _ in range(2_300_000))  # past two 2^20 windows
        letters = letters[:(1 << 20) - 2] + "GATTACA" + letters[(1 << 20) + 5:]  # a match across the first edge
        fasta = ">big\n" + "\n".join(letters[i:i + 80] for i in range(0, len(letters), 80)) + "\n>small\nGATTACA\n"
        source = self.write("big.fa", fasta.encode())
        bp = self.path("big.bp")
        self.run_cli("pack", "--dna", source, "-o", bp, expect=EXIT_OK)
        expected = [("big", p) for p in find_positions(letters, "GATTACA")] + [("small", 0)]
        self.assertIn(("big", (1 << 20) - 2), expected)
        j = self.json_of("find", bp, "GATTACA")
        self.assertEqual(j["count"], len(expected))
        self.assertEqual([(m["name"], m["position"]) for m in j["matches"]], expected)
        j = self.json_of("find", bp, "GATTACA", "--limit", "1")
        self.assertEqual((j["count"], len(j["matches"]), j["truncated"]), (len(expected), 1, True))
        r = self.run_cli("find", bp, "GATTACA", "--limit", "2", expect=EXIT_OK)
        self.assertEqual(r.out, "".join("%s\t%d\n" % m for m in expected[:2]))

    # ---- classification (issue #14 finding 8) ----------------------------------------------
    def test_input_classification(self):
        # Raw values whose first bytes are 1f 8b 00 00 (35615): not gzip (the method byte says so).
        values = [35615] + mixed_values(5000, 8)
        raw = self.write("r.u32", u32_bytes(values))
        for args, stdin in ((["pack", raw], None), (["pack", "-"], u32_bytes(values)),
                            (["pack", "--input-type", "plain", "-"], u32_bytes(values))):
            self.run_cli(*args, "-o", self.path("r.bp"), stdin=stdin, expect=EXIT_OK)
            self.assertEqual(self.run_cli("sum", self.path("r.bp"), expect=EXIT_OK).out, "%d\n" % sum(values))
        self.expect_failure(EXIT_BAD_INPUT, ["pack", "--input-type", "gzip", raw, "-o", self.path("g.bp")], raw + ":",
                            "gzip data is corrupt")
        self.run_cli("pack", "--input-type", "zip", raw, "-o", self.path("g.bp"), expect=EXIT_USAGE)
        # Gzip members back to back are one input; rows appended after a member are an error.
        two = self.write("two.csv.gz", gzip.compress(b"v\n1\n2\n") + gzip.compress(b"3\n4\n"))
        self.run_cli("pack", "--csv", "v", two, "-o", self.path("two.bp"), expect=EXIT_OK)
        self.assertEqual(self.run_cli("sum", self.path("two.bp"), expect=EXIT_OK).out, "10\n")
        appended = gzip.compress(b"v\n1\n2\n") + b"3\n4\n"
        path = self.write("appended.csv.gz", appended)
        self.expect_failure(EXIT_BAD_INPUT, ["pack", "--csv", "v", path, "-o", self.path("a.bp")], path + ":",
                            "data after the end of the gzip data")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", "--csv", "v", "-", "-o", self.path("a.bp")], "data after the end",
                            stdin=appended)
        self.assert_no_leftovers("a.bp")
        # A UTF-8 byte order mark does not eat the first value; a name given twice is an error.
        bom = self.write("bom.csv", b"\xef\xbb\xbf35\n36\n")
        self.run_cli("pack", "--csv", "1", bom, "-o", self.path("bom.bp"), expect=EXIT_OK)
        self.assertEqual(self.run_cli("sum", self.path("bom.bp"), expect=EXIT_OK).out, "71\n")
        twice = self.write("twice.csv", b"v,w,v\n1,2,3\n")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", "--csv", "v", twice, "-o", self.path("t.bp")], twice + ":",
                            '"v" (columns 1, 3)')
        self.run_cli("pack", "--csv", "3", twice, "-o", self.path("t.bp"), expect=EXIT_OK)
        self.assertEqual(self.run_cli("sum", self.path("t.bp"), expect=EXIT_OK).out, "3\n")

    # ---- atomic outputs ------------------------------------------------------------------
    def interrupt_mid_write(self, sig, existing=None):
        raw = self.write("a.u32", u32_bytes(mixed_values(100000, 9)))
        out = self.path("a.bp")
        if existing is not None:
            self.write("a.bp", existing)
        env = dict(os.environ, BITPLANE_TEST_STALL_WRITE="1")
        p = subprocess.Popen([BITPLANE, "pack", raw, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        line = p.stderr.readline().decode()  # written once the temporary file holds bytes
        self.assertIn("test hook: stalled writing " + out + ".partial-", line)
        temporary = line.strip().split("stalled writing ")[1]
        self.assertTrue(os.path.exists(temporary))
        self.assertGreater(os.path.getsize(temporary), 0)
        p.send_signal(sig)
        p.wait(timeout=30)
        p.stdout.close()
        p.stderr.close()
        self.assertEqual(p.returncode, -sig)  # died of the signal, as an interrupted program does
        self.assertFalse(os.path.exists(temporary))
        self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])
        if existing is None:
            self.assertFalse(os.path.exists(out))
        else:
            self.assertEqual(self.read(out), existing)

    def test_interrupted_write_leaves_no_output(self):
        self.interrupt_mid_write(signal.SIGINT)
        self.interrupt_mid_write(signal.SIGTERM)

    def test_interrupted_write_keeps_existing_output(self):
        self.interrupt_mid_write(signal.SIGINT, existing=b"the previous contents")

    def test_failed_pack_keeps_existing_output(self):
        # The error is in the last line, after every earlier value was packed.
        text = "v\n" + "".join("%d\n" % i for i in range(300000)) + "oops\n"
        src = self.write("bad.csv", text.encode())
        self.write("o.bp", b"previous")
        self.expect_failure(EXIT_BAD_INPUT, ["pack", src, "--csv", "v", "-o", self.path("o.bp")], "line 300002")
        self.assertEqual(self.read(self.path("o.bp")), b"previous")
        self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])

    # ---- signals and limits (issue #14 finding 7) ---------------------------------------------
    def stalled_pack(self, raw, out, preexec_fn=None):
        """Starts pack with its first output write stalled until the returned hold file is
        removed; returns (process, hold path) once the temporary output holds bytes."""
        hold = self.write("hold", b"")
        env = dict(os.environ, BITPLANE_TEST_STALL_WRITE=hold)
        p = subprocess.Popen([BITPLANE, "pack", raw, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, preexec_fn=preexec_fn)
        line = p.stderr.readline().decode()
        self.assertIn("test hook: stalled writing " + out + ".partial-", line)
        return p, hold

    def test_inherited_ignored_hangup_is_kept(self):
        values = mixed_values(100000, 9)
        raw = self.write("a.u32", u32_bytes(values))
        out = self.path("a.bp")
        p, hold = self.stalled_pack(raw, out, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        p.send_signal(signal.SIGHUP)  # as nohup's child gets it: ignored, the work goes on
        time.sleep(0.3)
        self.assertIsNone(p.poll())
        os.unlink(hold)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, EXIT_OK, err)
        self.assertEqual(self.run_cli("sum", out, expect=EXIT_OK).out, "%d\n" % sum(values))
        # Not ignored: a hang-up still ends the program and removes its temporary file.
        self.write("hold", b"")
        p, hold = self.stalled_pack(raw, self.path("b.bp"))
        p.send_signal(signal.SIGHUP)
        p.communicate(timeout=30)
        self.assertEqual(p.returncode, -signal.SIGHUP)
        self.assert_no_leftovers("b.bp")

    def test_file_size_limit_is_an_io_error(self):
        import resource
        raw = self.write("r.u32", os.urandom(4 << 20))  # incompressible: 4 MiB of output
        out = self.write("o.bp", b"previous")
        limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 10, 256 << 10))  # ulimit -f 256
        for args in (["pack", raw, "-o", out], ["pack", "-", "-o", out]):
            r = subprocess.run([BITPLANE, *args], input=self.read(raw) if "-" in args else None, capture_output=True,
                               preexec_fn=limit, timeout=110)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, EXIT_IO, err)  # not killed by SIGXFSZ (exit 153)
            self.assertIn(out + ":", err)
            self.assertIn("File too large", err)
            self.assertEqual(self.read(out), b"previous")
            self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])

    def test_input_shrinking_while_packed_is_an_io_error(self):
        raw = self.write("r.u32", os.urandom(24 << 20))  # three 8 MiB windows of the mapping
        out = self.write("o.bp", b"previous")
        p, hold = self.stalled_pack(raw, out)
        os.truncate(raw, 4096)  # log rotation
        os.unlink(hold)
        _, err = p.communicate(timeout=60)
        err = err.decode()
        self.assertEqual(p.returncode, EXIT_IO, err)  # not SIGBUS
        self.assertIn(raw + ":", err)
        self.assertRegex(err, "shrank while it was read|changed size while it was read")
        self.assertEqual(self.read(out), b"previous")
        self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])

    # ---- what -o may replace (issue #14 finding 3) --------------------------------------------
    def test_output_to_devices_and_fifos_is_written_in_place(self):
        import stat
        import threading
        values = mixed_values(20000, 3)
        bp = self.pack_values("a", values)
        raw = u32_bytes(values)
        for args in (["unpack", bp, "-o", "/dev/null"], ["pack", self.path("a.u32"), "-o", "/dev/null"]):
            self.run_cli(*args, expect=EXIT_OK)
            self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode))  # still the device
        self.assertEqual([f for f in os.listdir("/dev") if ".partial-" in f], [])
        # /dev/stdout on a pipe (capture_output): the bytes arrive there.
        self.assertEqual(self.run_cli("-q", "unpack", bp, "-o", "/dev/stdout", expect=EXIT_OK).stdout, raw)
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
        reader.start()
        self.run_cli("-q", "unpack", bp, "-o", fifo, expect=EXIT_OK)
        reader.join(timeout=60)
        self.assertEqual(got, [raw])
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])

    def test_output_replaces_only_regular_files(self):
        import socket
        raw = self.write("a.u32", u32_bytes(mixed_values(20000, 4)))
        expected = self.read(self.pack_values("ref", mixed_values(20000, 4)))
        # A symbolic link: its target is replaced, the link stays, the target keeps mode 0600.
        target = self.write("target.bp", b"old")
        os.chmod(target, 0o600)
        link = self.path("link.bp")
        os.symlink(target, link)
        self.run_cli("pack", raw, "-o", link, expect=EXIT_OK)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(self.read(target), expected)
        self.assertEqual(os.stat(target).st_mode & 0o7777, 0o600)
        # A plain file keeps its mode too.
        plain = self.write("plain.bp", b"old")
        os.chmod(plain, 0o640)
        self.run_cli("pack", raw, "-o", plain, expect=EXIT_OK)
        self.assertEqual(os.stat(plain).st_mode & 0o7777, 0o640)
        self.assertEqual(self.read(plain), expected)
        # Refused, and nothing is touched: a link to nothing, a directory, a socket.
        dangling = self.path("dangling.bp")
        os.symlink(self.path("nowhere.bp"), dangling)
        self.expect_failure(EXIT_IO, ["pack", raw, "-o", dangling], dangling + ": is a symbolic link to nothing")
        self.assertFalse(os.path.exists(self.path("nowhere.bp")))
        sub = self.path("sub")
        os.mkdir(sub)
        self.expect_failure(EXIT_IO, ["pack", raw, "-o", sub], sub + ": is a directory")
        sock_path = self.path("s.sock")
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.bind(sock_path)
            self.expect_failure(EXIT_IO, ["pack", raw, "-o", sock_path], sock_path + ":", "refusing to replace it")
            self.assertFalse(os.path.isfile(sock_path))
        finally:
            sock.close()
        self.assertEqual([f for f in os.listdir(self.dir) if ".partial-" in f], [])

    def test_sync_option_writes_the_same_file(self):
        raw = self.write("a.u32", u32_bytes(mixed_values(5000, 1)))
        self.run_cli("pack", raw, "-o", self.path("a.bp"), expect=EXIT_OK)
        self.run_cli("--sync", "pack", raw, "-o", self.path("b.bp"), expect=EXIT_OK)
        self.assertEqual(self.read(self.path("a.bp")), self.read(self.path("b.bp")))

    # ---- progress bar ----------------------------------------------------------------------
    def test_progress_bar_only_on_a_terminal(self):
        raw = self.write("a.u32", u32_bytes(mixed_values(50000, 2)))
        # Not a terminal: stderr stays empty (test_pack_json_and_summary checks the same).
        self.assertEqual(self.run_cli("pack", raw, "-o", self.path("a.bp"), expect=EXIT_OK).err, "")
        # A terminal: the bar is drawn on stderr and erased at the end; stdout is untouched.
        leader, follower = pty.openpty()
        p = subprocess.Popen([BITPLANE, "pack", raw, "-o", self.path("b.bp")], stdout=subprocess.PIPE, stderr=follower)
        os.close(follower)
        seen = b""
        deadline = time.time() + 60
        while time.time() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the other side closed
                    break
                if not chunk:
                    break
                seen += chunk
            elif p.poll() is not None:
                break
        out, _ = p.communicate(timeout=30)
        os.close(leader)
        self.assertEqual(p.returncode, 0)
        self.assertIn(b"pack " + raw.encode(), seen)
        self.assertIn(b"%", seen)
        self.assertTrue(seen.endswith(b"\r\x1b[K"), seen[-40:])
        self.assertIn(b"50000 uint32 values", out)
        self.assertNotIn(b"\r", out)
        # --quiet: nothing even on a terminal.
        leader, follower = pty.openpty()
        p = subprocess.Popen([BITPLANE, "-q", "pack", raw, "-o", self.path("c.bp")], stdout=subprocess.PIPE,
                             stderr=follower)
        os.close(follower)
        p.communicate(timeout=60)
        ready, _, _ = select.select([leader], [], [], 0.2)
        data = b""
        if ready:
            try:
                data = os.read(leader, 4096)
            except OSError:
                data = b""
        os.close(leader)
        self.assertEqual(data, b"")

    # ---- demo ------------------------------------------------------------------------------
    def test_demo(self):
        d = self.path("demo")
        r = self.run_cli("demo", "--values", "30000", "--dir", d, expect=EXIT_OK)
        for name in ("uniform10", "scores3", "sparse20", "timestamps", "readings", "random32"):
            self.assertRegex(r.out, r"\n%s .* ok\n" % name)
            raw = os.path.join(d, name + (".i32" if name == "readings" else ".u32"))
            back = self.path(name + ".back")
            self.run_cli("unpack", os.path.join(d, name + ".bp"), "-o", back, expect=EXIT_OK)
            self.assertEqual(self.read(back), self.read(raw), name)
        for operation in ("sum(uniform10)", "dot(uniform10, scores3)", "count 100 <= uniform10 <= 199",
                          "find readings == -1", "uniform10 AND scores3", "sum(sparse20)", "uniform10 AND sparse20"):
            self.assertRegex(r.out, r"\n%s .* yes\n" % operation.replace("(", r"\(").replace(")", r"\)"))
        self.assertIn("Next, try", r.out)
        self.assertIn("  %s pack %s/timestamps.u32 -o %s/t.bp && " % (BITPLANE, d, d), r.out)
        self.assertIn("stats %s/timestamps.bp" % d, r.out)
        self.assertEqual([f for f in os.listdir(d) if ".partial-" in f], [])


    def demo_genome(self, d, *args):
        """Runs the demo (small columns) and returns its output from the genome part on."""
        r = self.run_cli("demo", "--values", "5000", "--dir", d, *args, expect=EXIT_OK)
        self.assertIn("\ngenome: ", r.out)
        return r.out[r.out.index("\ngenome: ") + 1:]

    def check_demo_genome(self, out, fasta_path, text, stem, d, given):
        """The genome part of the demo's report against oracles computed here from the FASTA text
        (`fasta_path`, plain); `given` is the file the demo packed."""
        records = read_fasta(fasta_path)
        letters = "".join(s for _, s in records)
        self.assertIn("; %d record%s, %d letters, GC " % (len(records), "" if len(records) == 1 else "s", len(letters)),
                      out)
        bits = lambda size: "%.3f" % (8.0 * size / len(letters))
        self.assertRegex(out, r"\nFASTA text .* %d +%s\n" % (len(text), bits(len(text))))
        for label, bp in (("planes", stem + ".bp"), ("modeled", stem + ".modeled.bp")):
            size = os.path.getsize(os.path.join(d, bp))
            self.assertRegex(out, r"\n\.bp, %s .* %d +%s +[0-9.]+  ok\n" % (label, size, bits(size)))
            back = self.path(bp + ".fa")
            self.run_cli("unpack", os.path.join(d, bp), "-o", back, expect=EXIT_OK)
            self.assertEqual(self.read(back), text, bp)
        self.assertRegex(out, r"\nUCSC 2bit .* %d +%s\n" % (twobit_size(records), bits(twobit_size(records))))
        self.assertRegex(out, r"\ngzip -9 .* [0-9]+ +[0-9.]+ +[0-9.]+\n")
        self.assertRegex(out, r"\nzstd -19 .* [0-9]+ +[0-9.]+ +[0-9.]+\n")
        self.assertIn("DNA operation (one thread each)", out)
        hits = len(find_positions(letters, "GAATTC"))
        for operation in ("base counts and GC content", "reverse complement", "mismatches against a 1%-mutated copy",
                          "find GAATTC (%d hits)" % hits):
            self.assertRegex(out, r"\n%s .* yes\n" % operation.replace("(", r"\(").replace(")", r"\)"))
        self.assertIn("Next, try", out)
        self.assertIn("  %s gc %s/%s.bp && %s find %s/%s.bp GAATTC\n" % (BITPLANE, d, stem, BITPLANE, d, stem), out)
        self.assertIn("%s pack --dna %s -o %s/g.bp" % (BITPLANE, given, d), out)

    def test_demo_builtin_genome(self):
        d = self.path("demo")
        out = self.demo_genome(d)
        self.assertTrue(out.startswith("genome: lambda phage, NCBI NC_001416.1, built in"), out)
        # The program carries the checked-in file byte for byte, and writes it out for the next commands.
        with open(BUILTIN_GENOME, "rb") as f:
            builtin = f.read()
        self.assertEqual(self.read(os.path.join(d, "lambda_phage.fa.gz")), builtin)
        text = gzip.decompress(builtin)
        plain = self.write("lambda.fa", text)
        self.assertIn("1 record, 48502 letters, GC 49.86%", out)
        self.check_demo_genome(out, plain, text, "lambda_phage", d, os.path.join(d, "lambda_phage.fa.gz"))
        self.assertIn("find GAATTC (5 hits)", out)  # lambda's five EcoRI sites

    def test_demo_genome_option(self):
        # Soft-masked letters, a header "> pig1", IUPAC codes, gzip input: the report's checks hold.
        for fixture in ("pseudopig_softmasked.fa", "vcholerae_iupac.fa"):
            d = self.path("demo-" + fixture)
            source = os.path.join(DNA_FIXTURES, fixture)
            text = self.read(source)
            gz = self.write(fixture + ".gz", gzip.compress(text))
            out = self.demo_genome(d, "--genome", gz)
            self.assertTrue(out.startswith("genome: %s; " % gz), out)
            self.check_demo_genome(out, source, text, fixture[:-3], d, gz)

    def test_demo_genome_errors(self):
        d = self.path("demo")
        missing = self.path("missing.fa")
        self.expect_failure(EXIT_IO, ["demo", "--values", "5000", "--dir", d, "--genome", missing], missing)
        fastq = os.path.join(DNA_FIXTURES, "bowtie2_reads.fq")
        self.expect_failure(EXIT_BAD_INPUT, ["demo", "--values", "5000", "--dir", d, "--genome", fastq], fastq, "FASTQ")
        not_dna = self.write("digits.fa", b">x\nACGT1\n")
        self.expect_failure(EXIT_BAD_INPUT, ["demo", "--values", "5000", "--dir", d, "--genome", not_dna], not_dna)
        empty = self.write("empty.fa", b">nothing\n")
        self.expect_failure(EXIT_BAD_INPUT, ["demo", "--values", "5000", "--dir", d, "--genome", empty], empty,
                            "no letters")


if __name__ == "__main__":
    if "--bitplane" in sys.argv:
        i = sys.argv.index("--bitplane")
        BITPLANE = os.path.abspath(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    else:
        BITPLANE = os.environ.get("BITPLANE", "bitplane")
    unittest.main(verbosity=2)
