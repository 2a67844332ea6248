// The seam for DNA input (issue #5, FASTA/FASTQ): `bitplane pack --dna` lands here. Until the
// library has its DNA containers, the option exists and says so (a usage error, exit 1).
#include "cli_error.hpp"
#include "pack_formats.hpp"

namespace bitplane::cli {

pack_result pack_dna(const pack_target&) {
    throw usage_failure("--dna: this build of bitplane has no DNA support yet (FASTA/FASTQ input is issue #5)");
}

}  // namespace bitplane::cli
