// The library's access to a fasta's parts (the parser and the packed file build them).
#pragma once

#include <bitplane/dna/fasta.hpp>

#include "dna/code_window.hpp"

namespace bitplane::dna {

class fasta_access {
public:
    using entry = fasta::entry;
    static sequence& letters(fasta& f) noexcept { return f.letters_; }
    static std::string& headers(fasta& f) noexcept { return f.headers_; }
    static std::vector<entry>& records(fasta& f) noexcept { return f.records_; }
    static std::vector<line_run>& runs(fasta& f) noexcept { return f.runs_; }
    static const std::vector<entry>& records(const fasta& f) noexcept { return f.records_; }
    static const std::vector<line_run>& runs(const fasta& f) noexcept { return f.runs_; }
    static const std::string& headers(const fasta& f) noexcept { return f.headers_; }
};

}  // namespace bitplane::dna
