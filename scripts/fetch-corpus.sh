#!/usr/bin/env bash
# Cuts real integer columns out of data shipped in Debian packages, for bench/bench_corpus.cpp
# (issue #13): `apt-get download` + `dpkg -x` (nothing is installed), then python3 (standard
# library only) writes one file per column into build/corpus/ (git-ignored):
#   <name>.u32 / <name>.i32   the values, raw little-endian uint32 / int32, in the source's order
#   MANIFEST.tsv              name, type, values, package, file in the package, licence, what it is
# Idempotent: when every column is there it does nothing. Offline, or where a package is
# missing, it says which columns are missing and exits 0 (the benchmark runs on what is there).
# Only this script is committed; the data stays in build/corpus/.
#
# Columns (package, licence of the data as its Debian copyright file gives it):
#   lumpy-sv-examples (MIT; lumpy-sv's example paired-end alignments, pe.pos_sorted.bam.gz: a
#   gzipped BAM parsed record by record: 1.77M reads)
#     bam_pos       i32  read position, sorted by coordinate
#     bam_mapq      u32  mapping quality, 0..60 (small categorical)
#     bam_flag      u32  SAM flag bits (categorical, ~20 distinct values)
#     bam_tlen      i32  template length (negative for the reverse mate; wide, signed)
#     bam_mate_pos  i32  mate position (random-ish around pos, -1 where unmapped)
#     bam_ref_span  u32  reference bases the alignment covers (from its CIGAR; 0 where unmapped)
#   tor-geoipdb (IP-to-Country Database by WebHosting.Info, free with attribution: "This
#   benchmark uses the IP-to-Country Database provided by WebHosting.Info
#   (http://www.webhosting.info), available from http://ip-to-country.webhosting.info.";
#   the file itself says it is converted from the IPFire Location database)
#     geoip4_start   u32  first IPv4 address of each range (sorted, wide)
#     geoip4_size    u32  addresses in the range (powers of two and odd sizes)
#     geoip4_country u32  country code index (~250 categories, short runs)
#     geoip6_start   u32  top 32 bits of each IPv6 range's first address (sorted, repeats)
#     geoip6_country u32  country code index of each IPv6 range
#   bedtools-test (GPL-2; bedtools' intersect test intervals db500K.bed + q500K.bed, 1M lines)
#     bed_chrom   u32  chromosome index (long runs)
#     bed_start   u32  interval start (sorted within each chromosome)
#     bed_name    u32  interval name, an id in 0..500k (random order)
#     bed_strand  u32  0 for +, 1 for - (one bit)
#   wamerican-insane (SCOWL word lists: permissive, see its copyright file; 663k words)
#     word_length u32  bytes in each word (small range)
#     word_first  u32  first byte of each word (sorted list: long runs)
#   unicode-data (Unicode licence, permissive; one value per code point 0..0x10FFFF, 1,114,112)
#     ucd_category   u32  general category index (UnicodeData.txt; Cn where unlisted: long runs)
#     ucd_bidi       u32  bidi class index (UnicodeData.txt)
#     ucd_upper_diff i32  simple uppercase mapping minus the code point (mostly 0, negatives)
#     ucd_linebreak  u32  line break class index (LineBreak.txt, XX where unlisted)
#     ucd_script     u32  script index (Scripts.txt, Zzzz where unlisted)
#   tzdata (public domain; the TZif files under /usr/share/zoneinfo minus posix/ and right/,
#   symlinks and duplicate files skipped; small columns, 26,793 values)
#     tz_transition i32  transition times, seconds since 1970 (negative before 1970)
#     tz_offset     i32  UTC offset in seconds in force after each transition (negative west)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/debian-package.sh

dest=${BITPLANE_CORPUS_DIR:-build/corpus}
mkdir -p "$dest"

# package | columns it gives
packages=(
  "lumpy-sv-examples|bam_pos.i32 bam_mapq.u32 bam_flag.u32 bam_tlen.i32 bam_mate_pos.i32 bam_ref_span.u32"
  "tor-geoipdb|geoip4_start.u32 geoip4_size.u32 geoip4_country.u32 geoip6_start.u32 geoip6_country.u32"
  "bedtools-test|bed_chrom.u32 bed_start.u32 bed_name.u32 bed_strand.u32"
  "wamerican-insane|word_length.u32 word_first.u32"
  "unicode-data|ucd_category.u32 ucd_bidi.u32 ucd_upper_diff.i32 ucd_linebreak.u32 ucd_script.u32"
  "tzdata|tz_transition.i32 tz_offset.i32"
)

needed=()
total=0
for entry in "${packages[@]}"; do
  IFS='|' read -r package columns <<<"$entry"
  for column in $columns; do
    total=$((total + 1))
    if [[ ! -s "$dest/$column" ]] || ! grep -q "^${column%.*}	" "$dest/MANIFEST.tsv" 2>/dev/null; then
      needed+=("$package")
      break
    fi
  done
done
if ((${#needed[@]} == 0)); then
  echo "fetch-corpus: all $total columns present in $dest"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bitplane-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
for package in "${needed[@]}"; do
  if ! extract_debian_package fetch-corpus "$package" "$work"; then
    echo "fetch-corpus: the columns of $package are missing" >&2
    continue
  fi
  if ! python3 - "$package" "$work/$package" "$dest" <<'PY'; then
import array, bz2, gzip, hashlib, ipaddress, os, struct, sys

package, root, dest = sys.argv[1], sys.argv[2], sys.argv[3]
CAP = 4_000_000  # values per column at most

def write(name, kind, values, path, licence, what):
    values = values[:CAP]
    arr = array.array('i' if kind == 'i32' else 'I', values)
    assert arr.itemsize == 4
    if sys.byteorder == 'big':
        arr.byteswap()
    with open(os.path.join(dest, f'{name}.{kind}'), 'wb') as out:
        arr.tofile(out)
    manifest = os.path.join(dest, 'MANIFEST.tsv')
    rows = []
    if os.path.exists(manifest):
        rows = [r for r in open(manifest).read().splitlines()[1:] if r and r.split('\t')[0] != name]
    rows.append('\t'.join([name, kind, str(len(arr)), package, path, licence, what]))
    rows.sort()
    with open(manifest, 'w') as out:
        out.write('name\ttype\tvalues\tpackage\tfile\tlicence\tdescription\n')
        out.write('\n'.join(rows) + '\n')
    print(f'fetch-corpus: {dest}/{name}.{kind} ({len(arr)} values, from {package})')

def categories(labels):
    index = {label: i for i, label in enumerate(sorted(set(labels)))}
    return [index[label] for label in labels]

def lumpy():
    path = 'usr/share/doc/lumpy-sv/examples/data/pe.pos_sorted.bam.gz'
    # A gzipped BAM: BAM is BGZF, a series of gzip members, which gzip reads as one stream.
    with gzip.open(gzip.open(os.path.join(root, path))) as f:
        if f.read(4) != b'BAM\x01':
            raise ValueError('not a BAM file')
        (l_text,) = struct.unpack('<i', f.read(4))
        f.read(l_text)
        (n_ref,) = struct.unpack('<i', f.read(4))
        for _ in range(n_ref):
            (l_name,) = struct.unpack('<i', f.read(4))
            f.read(l_name + 4)
        cols = {k: [] for k in ('pos', 'mapq', 'flag', 'tlen', 'mate', 'len')}
        while len(cols['pos']) < CAP:
            head = f.read(4)
            if len(head) < 4:
                break
            (size,) = struct.unpack('<i', head)
            rec = f.read(size)
            _, pos, l_name, mapq, _, n_cigar, flag, _, _, next_pos, tlen = struct.unpack_from('<iiBBHHHIiii', rec)
            # Reference span: the lengths of the CIGAR operations M, D, N, = and X.
            span = 0
            for op in struct.unpack_from(f'<{n_cigar}I', rec, 32 + l_name):
                if op & 15 in (0, 2, 3, 7, 8):
                    span += op >> 4
            cols['pos'].append(pos); cols['mapq'].append(mapq); cols['flag'].append(flag)
            cols['tlen'].append(tlen); cols['mate'].append(next_pos); cols['len'].append(span)
    lic = 'MIT (lumpy-sv)'
    write('bam_pos', 'i32', cols['pos'], path, lic, 'read position, coordinate-sorted BAM')
    write('bam_mapq', 'u32', cols['mapq'], path, lic, 'mapping quality')
    write('bam_flag', 'u32', cols['flag'], path, lic, 'SAM flag')
    write('bam_tlen', 'i32', cols['tlen'], path, lic, 'template length (signed)')
    write('bam_mate_pos', 'i32', cols['mate'], path, lic, 'mate position')
    write('bam_ref_span', 'u32', cols['len'], path, lic, 'reference span of the alignment (CIGAR)')

def geoip():
    lic = 'IP-to-Country Database by WebHosting.Info, free with attribution'
    for name, file in (('geoip4', 'usr/share/tor/geoip'), ('geoip6', 'usr/share/tor/geoip6')):
        starts, sizes, countries = [], [], []
        for line in open(os.path.join(root, file)):
            if line.startswith('#') or ',' not in line:
                continue
            lo, hi, cc = line.strip().split(',')
            if name == 'geoip4':
                lo, hi = int(lo), int(hi)
                starts.append(lo)
                sizes.append(min(hi - lo + 1, 0xffffffff))
            else:
                starts.append(int(ipaddress.IPv6Address(lo)) >> 96)
            countries.append(cc)
        write(f'{name}_start', 'u32', starts, file, lic, 'first address of each range' +
              (' (top 32 bits)' if name == 'geoip6' else ''))
        if name == 'geoip4':
            write('geoip4_size', 'u32', sizes, file, lic, 'addresses in each range')
        write(f'{name}_country', 'u32', categories(countries), file, lic, 'country code index')

def bedtools():
    base = 'usr/share/bedtools/test/intersect/sortAndNaming/bigTests/'
    chroms, starts, names, strands = [], [], [], []
    for file in ('db500K.bed', 'q500K.bed'):
        for line in open(os.path.join(root, base + file)):
            f = line.split('\t')
            if len(f) < 6:
                continue
            chroms.append(f[0]); starts.append(int(f[1])); names.append(int(f[3]))
            strands.append(0 if f[5].strip() == '+' else 1)
    lic = 'GPL-2 (bedtools test data)'
    path = base + '{db500K,q500K}.bed'
    write('bed_chrom', 'u32', categories(chroms), path, lic, 'chromosome index')
    write('bed_start', 'u32', starts, path, lic, 'interval start')
    write('bed_name', 'u32', names, path, lic, 'interval name (an id)')
    write('bed_strand', 'u32', strands, path, lic, 'strand (0 +, 1 -)')

def words():
    path = 'usr/share/dict/american-english-insane'
    lines = open(os.path.join(root, path), 'rb').read().split(b'\n')
    lines = [w for w in lines if w]
    lic = 'SCOWL (permissive, see the copyright file)'
    write('word_length', 'u32', [len(w) for w in lines], path, lic, 'word length in bytes')
    write('word_first', 'u32', [w[0] for w in lines], path, lic, 'first byte of each word')

def unicode_data():
    base = 'usr/share/unicode/'
    n = 0x110000
    gc, bidi, upper = ['Cn'] * n, ['L'] * n, [0] * n
    first = None
    for line in open(os.path.join(root, base + 'UnicodeData.txt'), encoding='utf-8'):
        f = line.rstrip('\n').split(';')
        cp = int(f[0], 16)
        if f[1].endswith(', First>'):
            first = cp
            continue
        lo = first if f[1].endswith(', Last>') else cp
        first = None
        for c in range(lo, cp + 1):
            gc[c], bidi[c] = f[2], f[4]
            if f[12]:
                upper[c] = int(f[12], 16) - c
    def ranges(file, default):
        out = [default] * n
        for line in open(os.path.join(root, base + file), encoding='utf-8'):
            line = line.split('#')[0].strip()
            if not line:
                continue
            cps, value = (s.strip() for s in line.split(';')[:2])
            lo, _, hi = cps.partition('..')
            for c in range(int(lo, 16), int(hi or lo, 16) + 1):
                out[c] = value
        return out
    lic = 'Unicode licence (permissive)'
    write('ucd_category', 'u32', categories(gc), base + 'UnicodeData.txt', lic, 'general category per code point')
    write('ucd_bidi', 'u32', categories(bidi), base + 'UnicodeData.txt', lic, 'bidi class per code point')
    write('ucd_upper_diff', 'i32', upper, base + 'UnicodeData.txt', lic, 'uppercase mapping minus code point')
    write('ucd_linebreak', 'u32', categories(ranges('LineBreak.txt', 'XX')), base + 'LineBreak.txt', lic,
          'line break class per code point')
    write('ucd_script', 'u32', categories(ranges('Scripts.txt', 'Zzzz')), base + 'Scripts.txt', lic,
          'script per code point')

def tzdata():
    base = os.path.join(root, 'usr/share/zoneinfo')
    seen, times, offsets = set(), [], []
    for directory, subdirs, files in os.walk(base):
        subdirs[:] = sorted(d for d in subdirs if directory != base or d not in ('posix', 'right'))
        for file in sorted(files):
            p = os.path.join(directory, file)
            if os.path.islink(p):
                continue
            data = open(p, 'rb').read()
            digest = hashlib.sha256(data).digest()
            if data[:4] != b'TZif' or digest in seen:
                continue
            seen.add(digest)
            # Version 1 data block: 32-bit transition times, their type indices, the types.
            _, _, _, timecnt, typecnt, _ = struct.unpack_from('>6l', data, 20)
            at = struct.unpack_from(f'>{timecnt}l', data, 44)
            idx = data[44 + 4 * timecnt:44 + 5 * timecnt]
            types = [struct.unpack_from('>lBB', data, 44 + 5 * timecnt + 6 * k)[0] for k in range(typecnt)]
            times.extend(at)
            offsets.extend(types[i] for i in idx)
    lic = 'public domain (tz database)'
    write('tz_transition', 'i32', times, 'usr/share/zoneinfo/*', lic, 'transition times (s since 1970)')
    write('tz_offset', 'i32', offsets, 'usr/share/zoneinfo/*', lic, 'UTC offset after each transition (s)')

{'lumpy-sv-examples': lumpy, 'tor-geoipdb': geoip, 'bedtools-test': bedtools,
 'wamerican-insane': words, 'unicode-data': unicode_data, 'tzdata': tzdata}[package]()
PY
    echo "fetch-corpus: extracting the columns of $package failed (see above); continuing" >&2
  fi
  rm -rf "${work:?}/$package"
done
echo "fetch-corpus: $(ls "$dest" | grep -cE '\.(u32|i32)$') columns in $dest (manifest: $dest/MANIFEST.tsv)"
exit 0
