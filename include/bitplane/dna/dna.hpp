// The DNA part (issue #5): letters as bit-plane codes, sequences with operations on planes,
// FASTA and FASTQ reading and writing, the packed file. docs/dna.md is the guide.
#pragma once

#include <bitplane/dna/alphabet.hpp>
#include <bitplane/dna/fasta.hpp>
#include <bitplane/dna/fastq.hpp>
#include <bitplane/dna/sequence.hpp>
