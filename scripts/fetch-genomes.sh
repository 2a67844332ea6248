#!/usr/bin/env bash
# Downloads the real sequence files the DNA tests and benchmarks use, from Debian packages
# (`apt-get download` + `dpkg -x`: nothing is installed), into build/genomes/ (git-ignored).
# Idempotent: files already there are kept. Offline, or where a package is missing, it says so
# and exits 0: the tests that need a file skip themselves with the reason.
#
#   build/genomes/lambda_phage.fa.gz        bowtie2-examples  Enterobacteria phage lambda (48.5 kb)
#   build/genomes/ecoli_k12_mg1655.fa.gz    ragout-examples   E. coli K-12 MG1655 (4.6 Mb)
#   build/genomes/vcholerae_o1.fa.gz        ragout-examples   V. cholerae O1 biovar El Tor, with IUPAC codes
#   build/genomes/human_chr20_grch37.fa.gz  vt-examples       human chromosome 20, GRCh37 (63 Mb, N runs)
#   build/genomes/pseudopig_softmasked.fa.gz lastz-examples   soft-masked (lower-case) test genome
#   build/genomes/biomarks_18s.fa.gz        vsearch-examples  50,000 18S rRNA amplicons (lower case)
#   build/genomes/bowtie2_reads.fq.gz       bowtie2-examples  10,000 simulated reads (FASTQ)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/debian-package.sh

dest=build/genomes
mkdir -p "$dest"

# package | path inside the package | name in build/genomes
files=(
  "bowtie2-examples|usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz|lambda_phage.fa.gz"
  "bowtie2-examples|usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz|bowtie2_reads.fq.gz"
  "ragout-examples|usr/share/doc/ragout/examples/E.Coli/references/MG1655-K12.fasta.gz|ecoli_k12_mg1655.fa.gz"
  "ragout-examples|usr/share/doc/ragout/examples/V.Cholerae/references/O1_biovar.fasta.gz|vcholerae_o1.fa.gz"
  "vt-examples|usr/share/doc/vt/examples/ref/20.fa.gz|human_chr20_grch37.fa.gz"
  "lastz-examples|usr/share/doc/lastz/examples/test_data/pseudopig.fa.gz|pseudopig_softmasked.fa.gz"
  "vsearch-examples|usr/share/doc/vsearch-examples/BioMarKs50k.fsa.gz|biomarks_18s.fa.gz"
)

missing_packages=()
for entry in "${files[@]}"; do
  IFS='|' read -r package _ name <<<"$entry"
  if [[ ! -s "$dest/$name" && ! " ${missing_packages[*]} " =~ " $package " ]]; then
    missing_packages+=("$package")
  fi
done
if ((${#missing_packages[@]} == 0)); then
  echo "fetch-genomes: all ${#files[@]} files present in $dest"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bitplane-genomes.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
for package in "${missing_packages[@]}"; do
  if ! extract_debian_package fetch-genomes "$package" "$work"; then
    echo "fetch-genomes: the tests that need $package will skip" >&2
    status=1
    continue
  fi
  for entry in "${files[@]}"; do
    IFS='|' read -r p path name <<<"$entry"
    [[ "$p" == "$package" ]] || continue
    if [[ -s "$work/$package/$path" ]]; then
      cp "$work/$package/$path" "$dest/$name"
      echo "fetch-genomes: $dest/$name ($(stat -c %s "$dest/$name") bytes, from $package)"
    else
      echo "fetch-genomes: $package has no $path: $name skipped" >&2
    fi
  done
  rm -rf "${work:?}/$package"
done
if ((status != 0)); then echo "fetch-genomes: some files are missing (see above); continuing" >&2; fi
exit 0
