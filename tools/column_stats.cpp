#include "column_stats.hpp"

#include <bitplane/codec.hpp>

#include <string>

namespace bitplane::cli {

namespace {

using codec::base_kind;
using codec::payload_kind;

plane_encoding classify(const codec::plane_info& p) noexcept {
    switch (p.payload) {
        case payload_kind::none:
            if (p.base == base_kind::zero) return plane_encoding::zero;
            if (p.base == base_kind::one) return plane_encoding::one;
            return plane_encoding::copy;
        case payload_kind::positions: return plane_encoding::positions;
        case payload_kind::gaps: return plane_encoding::gaps;
        case payload_kind::runs: return plane_encoding::runs;
        case payload_kind::raw: return plane_encoding::raw;
    }
    return plane_encoding::raw;
}

bool referenced(const codec::plane_info& p) noexcept {
    return p.base == base_kind::plane || p.base == base_kind::complement;
}

template <class T>
void describe_all(const vector<T>& v, column_stats& s) {
    const detail::vector_core& core = v.core();
    std::array<std::byte, codec::max_block_bytes> scratch;
    auto add = [&](std::span<const std::byte> bytes, std::size_t count) {
        const codec::block_info info = codec::describe_block(bytes, count);
        ++s.blocks;
        s.encoded_bytes += info.bytes;
        ++s.blocks_by_transform[static_cast<std::size_t>(info.value_transform)];
        ++s.blocks_by_layout[static_cast<std::size_t>(info.value_layout)];
        for (std::size_t j = 0; j < plane_count; ++j) {
            const codec::plane_info& p = info.planes[j];
            const auto e = static_cast<std::size_t>(classify(p));
            ++s.per_plane[j][e];
            s.bytes_by_encoding[e] += p.bytes;
            s.referenced += referenced(p) ? 1 : 0;
        }
        if (info.value_layout == codec::layout::sparse) {
            const auto e = static_cast<std::size_t>(classify(info.mask));
            ++s.mask[e];
            s.bytes_by_encoding[e] += info.mask.bytes;
        }
    };
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) add(core.sealed_block(b, scratch), block_values);
    // The file stores the partial last block encoded; the vector keeps it as values.
    if (!core.tail().empty()) {
        const std::size_t n = codec::encode_block(core.tail(), core.is_signed(), scratch);
        add(std::span<const std::byte>(scratch).first(n), core.tail().size());
    }
}

}  // namespace

std::string_view name_of(plane_encoding e) noexcept {
    static constexpr std::string_view names[] = {"zero", "one", "copy", "positions", "gaps", "runs", "raw"};
    return names[static_cast<std::size_t>(e)];
}

column_stats compute_stats(const packed_file& file) {
    column_stats s;
    s.file_bytes = file.file_bytes;
    std::visit(
        [&](const auto& v) {
            s.values = v.size();
            describe_all(v, s);
            s.hamming = plane_hamming_matrix(v);
        },
        file.column);
    return s;
}

double agreement(const column_stats& s, std::size_t i, std::size_t j) noexcept {
    if (s.values == 0) return 1.0;
    // The diagonal holds popcounts, not distances: a plane agrees with itself everywhere.
    if (i == j) return 1.0;
    return 1.0 - static_cast<double>(s.hamming[i][j]) / static_cast<double>(s.values);
}

nlohmann::json to_json(const column_stats& s, const packed_file& file) {
    using nlohmann::json;
    static constexpr const char* transforms[] = {"none", "frame_of_reference", "delta", "zigzag"};
    json by_transform = json::object();
    for (std::size_t t = 0; t < 4; ++t) by_transform[transforms[t]] = s.blocks_by_transform[t];
    auto encodings = [](const std::array<std::uint64_t, plane_encoding_count>& counts) {
        json out = json::object();
        for (std::size_t e = 0; e < plane_encoding_count; ++e) out[std::string(name_of(static_cast<plane_encoding>(e)))] = counts[e];
        return out;
    };
    std::array<std::uint64_t, plane_encoding_count> total{};
    json per_plane = json::array();
    for (std::size_t j = 0; j < plane_count; ++j) {
        for (std::size_t e = 0; e < plane_encoding_count; ++e) total[e] += s.per_plane[j][e];
        json row = encodings(s.per_plane[j]);
        row["plane"] = j;
        per_plane.push_back(row);
    }
    json hamming = json::array();
    json agree = json::array();
    json ones = json::array();
    for (std::size_t i = 0; i < plane_count; ++i) {
        json h = json::array();
        json a = json::array();
        for (std::size_t j = 0; j < plane_count; ++j) {
            h.push_back(i == j ? 0 : s.hamming[i][j]);
            a.push_back(agreement(s, i, j));
        }
        hamming.push_back(h);
        agree.push_back(a);
        ones.push_back(s.hamming[i][i]);
    }
    const double values = static_cast<double>(s.values);
    return {
        {"file", file.path},
        {"type", type_name(file.column)},
        {"values", s.values},
        {"raw_bytes", 4 * s.values},
        {"file_bytes", s.file_bytes},
        {"encoded_bytes", s.encoded_bytes},
        {"bits_per_value", s.values ? 8.0 * static_cast<double>(s.file_bytes) / values : 0.0},
        {"blocks", {{"count", s.blocks}, {"by_transform", by_transform},
                    {"by_layout", {{"dense", s.blocks_by_layout[0]}, {"sparse", s.blocks_by_layout[1]}}}}},
        {"planes", {{"by_encoding", encodings(total)}, {"mask_by_encoding", encodings(s.mask)},
                    {"bytes_by_encoding", encodings(s.bytes_by_encoding)}, {"referenced", s.referenced},
                    {"per_plane", per_plane}}},
        {"similarity", {{"ones", ones}, {"hamming", hamming}, {"agreement", agree}}},
    };
}

}  // namespace bitplane::cli
