#include "dna_baselines.hpp"

#include <bitplane/dna/alphabet.hpp>

#include <cstring>

namespace bitplane::cli {

std::string fasta_letters_upper(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(at, end - at);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line.front() != '>')
            for (const char c : line) out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
        at = end + 1;
    }
    return out;
}

std::array<std::uint64_t, 256> byte_histogram(std::string_view letters) {
    std::array<std::uint64_t, 256> counts{};
    for (const char c : letters) ++counts[static_cast<unsigned char>(c)];
    return counts;
}

std::string byte_reverse_complement(std::string_view letters) {
    static const auto table = [] {
        std::array<char, 256> t{};
        for (int i = 0; i < 256; ++i) t[static_cast<std::size_t>(i)] = static_cast<char>(i);
        for (const char c : std::string_view("ACGTNRYSWKMBDHV-acgtnryswkmbdhv"))
            t[static_cast<unsigned char>(c)] = dna::complement_letter(c);
        return t;
    }();
    const std::size_t n = letters.size();
    std::string out(n, '\0');
    for (std::size_t i = 0; i < n; ++i) out[n - 1 - i] = table[static_cast<unsigned char>(letters[i])];
    return out;
}

std::uint64_t byte_mismatches(std::string_view a, std::string_view b) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) n += (a[i] & 0xDF) != (b[i] & 0xDF);
    return n;
}

std::vector<std::uint64_t> byte_find_all(std::string_view text, std::string_view pattern) {
    std::vector<std::uint64_t> hits;
    if (pattern.empty()) return hits;
    const char* p = text.data();
    const char* const end = text.data() + text.size();
    while (const void* q = memmem(p, static_cast<std::size_t>(end - p), pattern.data(), pattern.size())) {
        hits.push_back(static_cast<std::uint64_t>(static_cast<const char*>(q) - text.data()));
        p = static_cast<const char*>(q) + 1;
    }
    return hits;
}

}  // namespace bitplane::cli
