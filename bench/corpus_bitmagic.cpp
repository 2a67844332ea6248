// BitMagic side of bench_corpus (see corpus_bitmagic.hpp). Compiled with -mavx2 -mbmi -mbmi2
// -mpopcnt -mlzcnt and BMAVX2OPT, alone: this file's inline functions (the standard library's
// included) are then AVX2 code, so the benchmark is for AVX2 machines, which is what it measures.
#include "corpus_bitmagic.hpp"

#include "bitmagic_describe.hpp"

#include <bm.h>
#include <bmalgo.h>
#include <bmsparsevec.h>
#include <bmsparsevec_algo.h>
#include <bmsparsevec_serial.h>

#include <string>
#include <type_traits>
#include <variant>

namespace corpus_bitmagic {

namespace {

template <class V>
struct typed {
    using sv_type = bm::sparse_vector<V, bm::bvector<>>;
    sv_type sv;
    mutable bm::sparse_vector_scanner<sv_type> scanner;
    std::size_t size = 0;
};

template <class V>
V from_bits(std::uint32_t bits) {
    return static_cast<V>(bits);
}

template <class BV>
void append_positions(const BV& bv, std::vector<std::uint64_t>* positions) {
    if (positions == nullptr) return;
    for (auto en = bv.first(); en.valid(); ++en) positions->push_back(*en);
}

}  // namespace

struct column {
    std::variant<typed<unsigned>, typed<int>> impl;
};

void column_deleter::operator()(column* c) const noexcept { delete c; }

const char* describe() {
    static const std::string text = bench_bitmagic::describe();
    return text.c_str();
}

column_ptr build(const std::uint32_t* bits, std::size_t count, bool is_signed) {
    column_ptr c(new column);
    auto fill = [&](auto& t, const auto* values) {
        t.sv.import(values, static_cast<typename std::decay_t<decltype(t.sv)>::size_type>(count));
        BM_DECLARE_TEMP_BLOCK(temp)
        t.sv.optimize(temp);
        t.size = count;
    };
    if (is_signed) {
        c->impl.emplace<typed<int>>();
        fill(std::get<typed<int>>(c->impl), reinterpret_cast<const int*>(bits));
    } else {
        c->impl.emplace<typed<unsigned>>();
        fill(std::get<typed<unsigned>>(c->impl), reinterpret_cast<const unsigned*>(bits));
    }
    return c;
}

std::uint64_t random_reads(const column& c, const std::uint32_t* index, std::size_t count) {
    return std::visit(
        [&](const auto& t) {
            std::uint64_t s = 0;
            for (std::size_t k = 0; k < count; ++k) s += static_cast<std::uint32_t>(t.sv.get(index[k]));
            return s;
        },
        c.impl);
}

std::uint64_t iterate(const column& c) {
    return std::visit(
        [&](const auto& t) {
            std::uint64_t s = 0;
            auto it = t.sv.begin();
            for (std::size_t i = 0; i < t.size; ++i, ++it) s += static_cast<std::uint32_t>(*it);
            return s;
        },
        c.impl);
}

void decode(const column& c, std::uint32_t* out, std::size_t count) {
    std::visit(
        [&](const auto& t) {
            using V = typename std::decay_t<decltype(t.sv)>::value_type;
            t.sv.decode(reinterpret_cast<V*>(out), 0, static_cast<typename std::decay_t<decltype(t.sv)>::size_type>(count));
        },
        c.impl);
}

bitplane::int128 plane_sum(const column& c) {
    return std::visit(
        [&](const auto& t) -> bitplane::int128 {
            using V = typename std::decay_t<decltype(t.sv)>::value_type;
            const auto& sv = t.sv;
            const unsigned rows = static_cast<unsigned>(sv.get_bmatrix().rows());
            bitplane::int128 total = 0;
            if constexpr (std::is_signed_v<V>) {
                // Slice 0 is the sign; a value is (u >> 1) when it is clear, -(u >> 1) - 1 when set.
                const auto* sign = rows > 0 ? sv.get_slice(0) : nullptr;
                const bitplane::int128 negatives = sign != nullptr ? static_cast<bitplane::int128>(sign->count()) : 0;
                for (unsigned j = 1; j < rows && j < 33; ++j) {
                    const auto* p = sv.get_slice(j);
                    if (p == nullptr) continue;
                    const bitplane::int128 ones = static_cast<bitplane::int128>(p->count());
                    const bitplane::int128 neg = sign != nullptr ? static_cast<bitplane::int128>(bm::count_and(*p, *sign)) : 0;
                    total += (ones - 2 * neg) << (j - 1);
                }
                return total - negatives;
            } else {
                for (unsigned j = 0; j < rows && j < 32; ++j) {
                    const auto* p = sv.get_slice(j);
                    if (p != nullptr) total += static_cast<bitplane::int128>(p->count()) << j;
                }
                return total;
            }
        },
        c.impl);
}

std::uint64_t find_eq(const column& c, std::uint32_t x, std::vector<std::uint64_t>* positions) {
    return std::visit(
        [&](const auto& t) -> std::uint64_t {
            using V = typename std::decay_t<decltype(t.sv)>::value_type;
            bm::bvector<> out;
            t.scanner.find_eq(t.sv, from_bits<V>(x), out);
            append_positions(out, positions);
            return out.count();
        },
        c.impl);
}

std::uint64_t find_range(const column& c, std::uint32_t lo, std::uint32_t hi, std::vector<std::uint64_t>* positions) {
    return std::visit(
        [&](const auto& t) -> std::uint64_t {
            using V = typename std::decay_t<decltype(t.sv)>::value_type;
            bm::bvector<> out;
            t.scanner.find_range(t.sv, from_bits<V>(lo), from_bits<V>(hi), out);
            append_positions(out, positions);
            return out.count();
        },
        c.impl);
}

std::size_t serialized_bytes(const column& c) {
    return std::visit(
        [&](const auto& t) -> std::size_t {
            using sv_type = std::decay_t<decltype(t.sv)>;
            bm::sparse_vector_serializer<sv_type> serializer;
            serializer.enable_xor_compression();
            bm::sparse_vector_serial_layout<sv_type> layout;
            serializer.serialize(t.sv, layout);
            return layout.size();
        },
        c.impl);
}

std::size_t memory_bytes(const column& c) {
    return std::visit(
        [&](const auto& t) -> std::size_t {
            typename std::decay_t<decltype(t.sv)>::statistics stats;
            t.sv.calc_stat(&stats);
            return stats.memory_used;
        },
        c.impl);
}

}  // namespace corpus_bitmagic
