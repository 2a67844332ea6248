// Writes seed corpora for the fuzz targets: saved vectors and single blocks of every data
// shape the codec distinguishes (uniform k-bit, sparse, runs, sorted, negative, constant,
// all-ones, partial blocks), so that fuzzing starts from every layout, transform and payload.
#include <bitplane/bitplane.hpp>
#include <bitplane/bitset_view.hpp>

#include "bitset/bitset_file_v2.hpp"
#include "codec/byte_io.hpp"
#include "dna/base_model.hpp"
#include "dna/gzip.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

void write(const std::filesystem::path& file, std::span<const std::byte> bytes) {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::vector<std::uint32_t>> shapes() {
    std::mt19937_64 rng(7);
    std::vector<std::vector<std::uint32_t>> out;
    for (unsigned bits : {0u, 1u, 3u, 10u, 20u, 32u}) {
        std::vector<std::uint32_t> v(2048 + 77);
        for (auto& x : v) x = bits == 32 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() & ((1ull << bits) - 1));
        out.push_back(v);
    }
    std::vector<std::uint32_t> sparse(4096), runs(2048), sorted(2048), negative(2048), ones(2048, ~0u), constant(300, 7);
    for (auto& x : sparse) x = rng() % 10 == 0 ? static_cast<std::uint32_t>(rng() & 0xFFFFF) : 0;
    std::uint32_t level = 0;
    for (auto& x : runs) { if (rng() % 100 == 0) level = rng() % 50; x = level; }
    std::uint32_t t = 1'700'000'000u;
    for (auto& x : sorted) x = t += 1000 + static_cast<std::uint32_t>(rng() % 31) - 15;
    for (auto& x : negative) x = rng() % 20 == 0 ? ~0u : static_cast<std::uint32_t>(rng() % 1000);
    for (auto* v : {&sparse, &runs, &sorted, &negative, &ones, &constant}) out.push_back(*v);
    return out;
}

// Saved bitsets of many densities and layouts (empty, full, runs, single bits, partial last
// block), for fuzz_load_bitset.
std::vector<bitplane::bitset> bitsets() {
    std::mt19937_64 rng(11);
    std::vector<bitplane::bitset> out;
    out.emplace_back();
    for (const std::uint64_t size : {std::uint64_t{1}, std::uint64_t{2047}, std::uint64_t{2048}, std::uint64_t{10000}}) {
        for (const double density : {0.0, 0.0001, 0.01, 0.5, 0.99, 1.0}) {
            std::vector<std::uint64_t> positions;
            for (std::uint64_t p = 0; p < size; ++p)
                if (static_cast<double>(rng() % 1000000) < density * 1000000.0) positions.push_back(p);
            out.push_back(bitplane::bitset::from_positions(positions, size));
        }
    }
    std::vector<std::uint64_t> runs;
    for (std::uint64_t p = 0; p < 6000; ++p)
        if ((p / 300) % 2 == 0) runs.push_back(p);
    out.push_back(bitplane::bitset::from_positions(runs, 6000));
    // Version 2's segment kinds side by side: runs of heavy-tailed lengths, nearly full and
    // full stretches, dense and sparse blocks, a sparse set over 2^30 bits.
    std::vector<std::uint64_t> mixed;
    for (std::uint64_t p = 0; p < 9 * 2048 + 100; ++p) {
        const std::uint64_t b = p / 2048;
        const bool in = b == 0 ? p % 97 == 3 : b == 1 ? (p / 64) % 3 == 0 : b == 2 ? rng() % 2 == 0 : b == 3 ? true
                      : b == 4 ? rng() % 500 != 0 : b == 6 ? (rng() % (1 + p % 700)) > 3 : b == 8 ? p % 7 == 1 : false;
        if (in) mixed.push_back(p);
    }
    out.push_back(bitplane::bitset::from_positions(mixed, 9 * 2048 + 100));
    std::vector<std::uint64_t> sparse;
    for (int i = 0; i < 40; ++i) sparse.push_back((rng() % (std::uint64_t{1} << 30)));
    std::sort(sparse.begin(), sparse.end());
    sparse.erase(std::unique(sparse.begin(), sparse.end()), sparse.end());
    out.push_back(bitplane::bitset::from_positions(sparse, std::uint64_t{1} << 30));
    return out;
}

// Small FASTA and FASTQ texts with what the DNA formats must keep: N runs, soft-masking,
// IUPAC codes, gaps, CRLF, empty records, irregular lines, no final newline.
std::vector<std::string> fasta_texts() {
    return {
        ">chr1 test\nACGTACGTNNNNNNNNacgtRYSWKMBDHVN-\nACG\n>empty\n>x\nTTTT\n",
        ">a\r\nACGTNNNN\r\nacgt\r\n",
        ">only header",
        ">r1 irregular lines\nACGTACGTACGT\nAC\n\nACGTACGTA\nNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN\n",
        ">lower\nacgtacgtacgtnnnnacgtacgt",
    };
}

std::vector<std::string> fastq_texts() {
    return {"@read1\nACGTN\n+\nIIII#\n@read2 desc\nacgt\n+read2 desc\n!!!!\n", "@r\r\nAC\r\n+\r\nII\r\n"};
}

void write_text(const std::filesystem::path& file, std::uint8_t mode, const std::string& text) {
    std::vector<std::byte> bytes{std::byte{mode}};
    for (const char c : text) bytes.push_back(static_cast<std::byte>(c));
    write(file, bytes);
}

}  // namespace

// Usage: make_corpus ROOT. Writes ROOT/<target> for load_vector, decode_block, load_bitset, bitset_view,
// simd_decode, fasta_parse, load_dna, dna_metadata, dna_modeled and plot_script.
int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const std::filesystem::path root = argv[1];
    const std::filesystem::path vectors = root / "load_vector", blocks = root / "decode_block",
                                sets = root / "load_bitset", decode_paths = root / "simd_decode";
    for (const auto& dir : {vectors, blocks, sets, decode_paths}) std::filesystem::create_directories(dir);
    int n = 0;
    for (const auto& values : shapes()) {
        // Version 3 (the zstd stage, save's default, where it pays) and version 2 of each.
        std::vector<std::byte> file;
        bitplane::save(bitplane::vector<std::uint32_t>(std::span<const std::uint32_t>(values)), file);
        write(vectors / ("u32_" + std::to_string(n)), file);
        file.clear();
        bitplane::save(bitplane::vector<std::uint32_t>(std::span<const std::uint32_t>(values)), file,
                       bitplane::save_options{.zstd_level = 0});
        write(vectors / ("u32_v2_" + std::to_string(n)), file);
        file.clear();
        std::vector<std::int32_t> signed_values(values.begin(), values.end());
        bitplane::save(bitplane::vector<std::int32_t>(std::span<const std::int32_t>(signed_values)), file);
        write(vectors / ("i32_" + std::to_string(n)), file);
        const std::size_t count = std::min<std::size_t>(values.size(), 2048);
        std::vector<std::byte> block(2 + bitplane::codec::max_block_bytes);
        const std::size_t c = count - 1;
        block[0] = static_cast<std::byte>(c & 0xFF);
        block[1] = static_cast<std::byte>(c >> 8);
        const std::size_t bytes = bitplane::codec::encode_block(std::span(values).first(count), false,
                                                                std::span(block).subspan(2));
        write(blocks / ("block_" + std::to_string(n)), std::span(block).first(2 + bytes));
        // simd_decode takes the same block inputs as decode_block.
        write(decode_paths / ("block_" + std::to_string(n)), std::span(block).first(2 + bytes));
        ++n;
    }
    // load_vector, version 2 with repeated blocks (docs/format.md section 3): the block map's
    // new and repeat runs, a repeat of a block further back, and a tail that repeats a block.
    {
        std::vector<std::uint32_t> a(2048), b(2048);
        for (std::size_t i = 0; i < 2048; ++i) {
            a[i] = static_cast<std::uint32_t>(i * 2654435761u) >> 22;
            b[i] = static_cast<std::uint32_t>(i / 300);
        }
        const std::vector<std::uint32_t> c7(2048, 7);
        const std::vector<const std::vector<std::uint32_t>*> order = {&c7, &c7, &c7, &a, &a, &b, &c7, &a, &b, &b};
        std::vector<std::uint32_t> runs;
        for (const auto* part : order) runs.insert(runs.end(), part->begin(), part->end());
        runs.insert(runs.end(), 100, 7u);
        std::vector<std::byte> file;
        bitplane::save(bitplane::vector<std::uint32_t>(std::span<const std::uint32_t>(runs)), file,
                       bitplane::save_options{.zstd_level = 0});
        write(vectors / "u32_repeats", file);
        for (const int level : {1, 19}) {  // version 3: the same body as a zstd frame
            file.clear();
            bitplane::save(bitplane::vector<std::uint32_t>(std::span<const std::uint32_t>(runs)), file,
                           bitplane::save_options{.zstd_level = level});
            write(vectors / ("u32_repeats_zstd" + std::to_string(level)), file);
        }
        file.clear();
        bitplane::save(bitplane::vector<std::uint32_t>(std::size_t{40} * 2048 + 9, 5u), file,
                       bitplane::save_options{.zstd_level = 0});
        write(vectors / "u32_constant", file);
    }
    // fasta_parse: mode byte (0 FASTA, 1 FASTQ) + text;
    // load_dna: mode byte (0 packed FASTA, 1 saved sequence) + bytes.
    const std::filesystem::path texts = root / "fasta_parse", dna = root / "load_dna";
    std::filesystem::create_directories(texts);
    std::filesystem::create_directories(dna);
    n = 0;
    for (const std::string& text : fasta_texts()) {
        write_text(texts / ("fasta_" + std::to_string(n)), 0, text);
        const bitplane::dna::fasta file = bitplane::dna::fasta::parse(text);
        for (const auto mode : {bitplane::dna::pack_mode::planes, bitplane::dna::pack_mode::modeled}) {
            std::vector<std::byte> packed{std::byte{0}};
            bitplane::dna::pack(file, packed, mode);
            write(dna / ("packed_" + std::to_string(static_cast<int>(mode)) + "_" + std::to_string(n)), packed);
        }
        std::vector<std::byte> v1{std::byte{0}};  // modeled coder 1: the files written before flag bit 4
        bitplane::dna::detail::pack_with_coder(file, v1, bitplane::dna::pack_mode::modeled,
                                               bitplane::dna::detail::modeled_coder::v1);
        write(dna / ("packed_v1_" + std::to_string(n)), v1);
        std::vector<std::byte> saved{std::byte{1}};
        bitplane::dna::save(file.letters(), saved);
        write(dna / ("sequence_" + std::to_string(n)), saved);
        ++n;
    }
    // dna_metadata: flags, letter count, record count, the record table as stored before
    // deflating; dna_modeled: letter count + a modeled payload (fuzz_dna_*.cpp).
    const std::filesystem::path tables = root / "dna_metadata", modeled = root / "dna_modeled";
    std::filesystem::create_directories(tables);
    std::filesystem::create_directories(modeled);
    n = 0;
    for (const std::string& text : fasta_texts()) {
        const bitplane::dna::fasta file = bitplane::dna::fasta::parse(text);
        std::vector<std::byte> packed;
        bitplane::dna::pack(file, packed, bitplane::dna::pack_mode::modeled);
        using bitplane::detail::load_le;
        const auto flags = static_cast<std::uint8_t>(packed[11]);
        const auto letters = load_le<std::uint64_t>(packed.data() + 16);
        const auto records = load_le<std::uint64_t>(packed.data() + 24);
        const auto stored = load_le<std::uint64_t>(packed.data() + 32);
        const auto raw = load_le<std::uint64_t>(packed.data() + 40);
        const auto payload = load_le<std::uint64_t>(packed.data() + 48);
        const auto table_bytes = std::span<const std::byte>(packed).subspan(64, stored);
        const std::string table = (flags & 0x08) != 0 ? bitplane::dna::detail::inflate_bytes(table_bytes, raw, 64)
                                                      : std::string(reinterpret_cast<const char*>(table_bytes.data()), stored);
        for (const int deflate : {0, 4}) {
            std::vector<std::byte> seed{std::byte{static_cast<std::uint8_t>((flags & 3) | deflate | (n % 2 == 0 ? 8 : 0))},
                                        std::byte{static_cast<std::uint8_t>(letters)},
                                        std::byte{static_cast<std::uint8_t>(letters >> 8)},
                                        std::byte{static_cast<std::uint8_t>(records)},
                                        std::byte{static_cast<std::uint8_t>(records >> 8)}};
            for (const char c : table) seed.push_back(static_cast<std::byte>(c));
            write(tables / ("table_" + std::to_string(n) + "_" + std::to_string(deflate)), seed);
        }
        std::vector<std::byte> coded{std::byte{static_cast<std::uint8_t>(letters)},
                                     std::byte{static_cast<std::uint8_t>(letters >> 8)}};
        coded.insert(coded.end(), packed.end() - static_cast<std::ptrdiff_t>(payload), packed.end());
        write(modeled / ("modeled_" + std::to_string(n)), coded);
        // The same letters under coder 1 (bit 13 of the letter count, fuzz_dna_modeled.cpp).
        std::vector<std::byte> v1;
        bitplane::dna::detail::write_modeled(file.letters(), v1, bitplane::dna::detail::modeled_coder::v1);
        coded.resize(2);
        coded[1] |= std::byte{0x20};
        coded.insert(coded.end(), v1.begin(), v1.end());
        write(modeled / ("modeled_v1_" + std::to_string(n)), coded);
        ++n;
    }
    // A longer sequence: four blocks (three block boundaries) of mostly N runs (across the
    // boundaries), with runs of plain bases (repeats, lower case) and ambiguity codes between
    // them: 436 plain bases, under the 512 that the modeled targets decode (fuzz_support.hpp).
    // dna_modeled gets its modeled payload, load_dna the file packed both ways.
    {
        std::string text = ">long\n";
        std::mt19937_64 rng(3);
        for (int i = 0; i < 7000; ++i) {
            const int m = i % 2000;
            text += m >= 20 && m < 1880 ? 'N'
                    : i % 333 == 0      ? "RYKMSWBDHV"[rng() % 10]
                    : m >= 1940         ? "acgt"[rng() % 4]
                                        : "ACGT"[i % 7 < 4 ? i % 4 : rng() % 4];
            if (i % 60 == 59) text += '\n';
        }
        text += '\n';
        const bitplane::dna::fasta file = bitplane::dna::fasta::parse(text);
        for (const auto mode : {bitplane::dna::pack_mode::planes, bitplane::dna::pack_mode::modeled}) {
            std::vector<std::byte> packed{std::byte{0}};
            bitplane::dna::pack(file, packed, mode);
            write(dna / ("packed_" + std::to_string(static_cast<int>(mode)) + "_long"), packed);
        }
        std::vector<std::byte> packed;
        bitplane::dna::pack(file, packed, bitplane::dna::pack_mode::modeled);
        const auto payload = bitplane::detail::load_le<std::uint64_t>(packed.data() + 48);
        std::vector<std::byte> coded{std::byte{7000 & 0xFF}, std::byte{7000 >> 8}};
        coded.insert(coded.end(), packed.end() - static_cast<std::ptrdiff_t>(payload), packed.end());
        write(modeled / "modeled_long", coded);
    }
    // plot_script: directory length, directory, title.
    const std::filesystem::path plots = root / "plot_script";
    std::filesystem::create_directories(plots);
    n = 0;
    for (const std::string& seed : {std::string("\x04/tmpcolumn.bp"), std::string("\x0b/tmp/it''s'x\n!touch PWNED\n#.bp"),
                                    std::string(1, '\0') + "\"quoted\" \\ `cmd` @macro", std::string("\x03/a\nb")}) {
        std::vector<std::byte> bytes;
        for (const char c : seed) bytes.push_back(static_cast<std::byte>(c));
        write(plots / ("seed_" + std::to_string(n++)), bytes);
    }
    n = 0;
    for (const std::string& text : fastq_texts()) write_text(texts / ("fastq_" + std::to_string(n++)), 1, text);
    n = 0;
    for (const bitplane::bitset& set : bitsets()) {
        std::vector<std::byte> file, v1;
        bitplane::save(set, file);
        write(sets / ("bitset_" + std::to_string(n)), file);
        bitplane::detail::bitset_v1::save(set, v1);  // version 1 files still load
        if (v1.size() <= 65536) write(sets / ("bitset_v1_" + std::to_string(n)), v1);
        ++n;
    }
    // fuzz_bitset_view: the frozen layout (version 3) of the same sets, and a version 2 file.
    const std::filesystem::path views = root / "bitset_view";
    std::filesystem::create_directories(views);
    n = 0;
    for (const bitplane::bitset& set : bitsets()) {
        std::vector<std::byte> file;
        bitplane::save_frozen(set, file);
        if (file.size() <= 65536) write(views / ("frozen_" + std::to_string(n)), file);
        if (n == 0) {
            file.clear();
            bitplane::save(set, file);
            write(views / "bitset_v2_0", file);
        }
        ++n;
    }
    return 0;
}
