// Shared helpers of the DNA tests: seeded random letters of many shapes, plain byte-string
// reference implementations of every operation (the oracle the plane versions are checked
// against), and where the fixtures and downloaded genomes are.
#pragma once

#include "test_support.hpp"

#include <bitplane/dna/dna.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace dna_test {

namespace dna = bitplane::dna;

enum class letters_shape {
    acgt,        // uniform upper-case ACGT
    lower,       // uniform lower-case acgt
    soft_masked, // ACGT with lower-case runs of 1..600
    n_runs,      // ACGT with N runs of 1..5000
    all_n,       // N only
    iupac,       // every letter of the alphabet, both cases, at random
    homopolymer, // long runs of one letter (1..3000)
    mixed,       // segments of random length, each of another shape
};

inline const std::vector<letters_shape>& all_letter_shapes() {
    static const std::vector<letters_shape> shapes = {letters_shape::acgt,   letters_shape::lower,
                                                      letters_shape::soft_masked, letters_shape::n_runs,
                                                      letters_shape::all_n,  letters_shape::iupac,
                                                      letters_shape::homopolymer, letters_shape::mixed};
    return shapes;
}

inline std::string shape_name(letters_shape s) {
    switch (s) {
        case letters_shape::acgt: return "acgt";
        case letters_shape::lower: return "lower";
        case letters_shape::soft_masked: return "soft_masked";
        case letters_shape::n_runs: return "n_runs";
        case letters_shape::all_n: return "all_n";
        case letters_shape::iupac: return "iupac";
        case letters_shape::homopolymer: return "homopolymer";
        case letters_shape::mixed: return "mixed";
    }
    return "?";
}

/// Every accepted letter: 16 upper-case (with '-') and 15 lower-case.
inline std::string every_letter() {
    std::string out;
    for (const char c : dna::all_letters) {
        out += c;
        if (c != '-') out += static_cast<char>(c | 0x20);
    }
    return out;
}

inline void fill(letters_shape shape, std::string& out, std::size_t n, std::mt19937_64& rng) {
    static const std::string every = every_letter();
    auto below = [&](std::size_t k) { return static_cast<std::size_t>(rng() % k); };
    const char* acgt = "ACGT";
    switch (shape) {
        case letters_shape::acgt:
            for (std::size_t i = 0; i < n; ++i) out += acgt[below(4)];
            break;
        case letters_shape::lower:
            for (std::size_t i = 0; i < n; ++i) out += static_cast<char>(acgt[below(4)] | 0x20);
            break;
        case letters_shape::soft_masked: {
            bool lower = below(2) == 0;
            for (std::size_t i = 0; i < n;) {
                const std::size_t len = std::min(n - i, 1 + below(600));
                for (std::size_t k = 0; k < len; ++k) out += static_cast<char>(acgt[below(4)] | (lower ? 0x20 : 0));
                lower = !lower;
                i += len;
            }
            break;
        }
        case letters_shape::n_runs:
            for (std::size_t i = 0; i < n;) {
                const std::size_t len = std::min(n - i, 1 + below(5000));
                const bool ns = below(3) == 0;
                for (std::size_t k = 0; k < len; ++k) out += ns ? 'N' : acgt[below(4)];
                i += len;
            }
            break;
        case letters_shape::all_n:
            out.append(n, 'N');
            break;
        case letters_shape::iupac:
            for (std::size_t i = 0; i < n; ++i) out += every[below(every.size())];
            break;
        case letters_shape::homopolymer:
            for (std::size_t i = 0; i < n;) {
                const std::size_t len = std::min(n - i, 1 + below(3000));
                out.append(len, every[below(every.size())]);
                i += len;
            }
            break;
        case letters_shape::mixed:
            for (std::size_t i = 0; i < n;) {
                const std::size_t len = std::min(n - i, 1 + below(5000));
                fill(all_letter_shapes()[below(all_letter_shapes().size() - 1)], out, len, rng);
                i += len;
            }
            break;
    }
}

/// `n` letters of `shape`, a pure function of its arguments.
inline std::string make_letters(letters_shape shape, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::string out;
    out.reserve(n);
    fill(shape, out, n, rng);
    return out;
}

/// Sizes around block edges.
inline const std::vector<std::size_t>& dna_sizes() {
    static const std::vector<std::size_t> sizes = {0, 1, 2, 31, 32, 33, 2047, 2048, 2049, 4096, 3 * 2048 + 5, 20001};
    return sizes;
}

// ---- byte-string references ------------------------------------------------------------------

inline dna::base_counts reference_counts(std::string_view s) {
    dna::base_counts c;
    for (const char ch : s) {
        if (std::islower(static_cast<unsigned char>(ch))) ++c.lower;
        switch (std::toupper(static_cast<unsigned char>(ch))) {
            case 'A': ++c.a; break;
            case 'C': ++c.c; break;
            case 'G': ++c.g; break;
            case 'T': ++c.t; break;
            case 'N': ++c.n; break;
            case '-': ++c.gaps; break;
            default: ++c.ambiguous; break;
        }
    }
    return c;
}

inline std::uint64_t reference_mismatches(std::string_view a, std::string_view b, bool ignore_case) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const char x = ignore_case ? static_cast<char>(std::toupper(static_cast<unsigned char>(a[i]))) : a[i];
        const char y = ignore_case ? static_cast<char>(std::toupper(static_cast<unsigned char>(b[i]))) : b[i];
        n += x != y;
    }
    return n;
}

inline char reference_complement(char c) {
    const bool lower = std::islower(static_cast<unsigned char>(c)) != 0;
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    switch (u) {
        case 'A': u = 'T'; break;
        case 'T': u = 'A'; break;
        case 'C': u = 'G'; break;
        case 'G': u = 'C'; break;
        case 'R': u = 'Y'; break;
        case 'Y': u = 'R'; break;
        case 'K': u = 'M'; break;
        case 'M': u = 'K'; break;
        case 'B': u = 'V'; break;
        case 'V': u = 'B'; break;
        case 'D': u = 'H'; break;
        case 'H': u = 'D'; break;
        default: break;  // N S W -
    }
    return lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(u))) : u;
}

inline std::string reference_reverse_complement(std::string_view s) {
    std::string out(s.rbegin(), s.rend());
    for (char& c : out) c = reference_complement(c);
    return out;
}

// The bases an upper-case IUPAC letter stands for, as a string.
inline std::string iupac_bases(char c) {
    switch (std::toupper(static_cast<unsigned char>(c))) {
        case 'A': return "A"; case 'C': return "C"; case 'G': return "G"; case 'T': return "T";
        case 'R': return "AG"; case 'Y': return "CT"; case 'S': return "CG"; case 'W': return "AT";
        case 'K': return "GT"; case 'M': return "AC"; case 'B': return "CGT"; case 'D': return "AGT";
        case 'H': return "ACT"; case 'V': return "ACG"; case 'N': return "ACGT";
        default: return "";
    }
}

inline std::vector<std::uint64_t> reference_find(std::string_view text, std::string_view pattern) {
    std::vector<std::uint64_t> hits;
    if (pattern.empty() || pattern.size() > text.size()) return hits;
    for (std::size_t i = 0; i + pattern.size() <= text.size(); ++i) {
        bool ok = true;
        for (std::size_t j = 0; j < pattern.size() && ok; ++j) {
            const char t = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i + j])));
            ok = (t == 'A' || t == 'C' || t == 'G' || t == 'T') && iupac_bases(pattern[j]).find(t) != std::string::npos;
        }
        if (ok) hits.push_back(i);
    }
    return hits;
}

// ---- files -------------------------------------------------------------------------------------

/// The repository root (found from this file's path or the working directory).
inline std::filesystem::path repo_root() {
    namespace fs = std::filesystem;
    std::vector<fs::path> starts = {fs::path(__FILE__).parent_path().parent_path(), fs::current_path()};
    for (fs::path p : starts) {
        if (p.is_relative()) p = fs::current_path() / p;
        for (; !p.empty(); p = p.parent_path()) {
            if (fs::exists(p / "scripts" / "fetch-genomes.sh")) return p;
            if (p == p.parent_path()) break;
        }
    }
    return fs::current_path();
}

inline std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline std::filesystem::path fixture(const std::string& name) { return repo_root() / "tests" / "fixtures" / "dna" / name; }

/// A downloaded genome (scripts/fetch-genomes.sh), or nothing when it is absent.
/// BITPLANE_GENOMES_DIR overrides build/genomes.
inline std::optional<std::filesystem::path> genome(const std::string& name) {
    const char* env = std::getenv("BITPLANE_GENOMES_DIR");
    const std::filesystem::path dir = env != nullptr && *env != '\0' ? std::filesystem::path(env) : repo_root() / "build" / "genomes";
    const auto path = dir / name;
    if (!std::filesystem::exists(path)) return std::nullopt;
    return path;
}

}  // namespace dna_test
