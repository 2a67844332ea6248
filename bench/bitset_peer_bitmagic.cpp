// BitMagic side of bench_bitset_peers (bitset_peers.hpp): bm::bvector<> (32-bit positions),
// compiled alone with -mavx2 and BMAVX2OPT like corpus_bitmagic.cpp, so its code is AVX2.
#include "bitset_peers.hpp"

#include "bitmagic_describe.hpp"

#include <bm.h>
#include <bmalgo.h>
#include <bmserial.h>

#include <string>

namespace bitset_peers {

namespace {

using bvector = bm::bvector<>;

bvector& of(const set& s) { return *reinterpret_cast<bvector*>(const_cast<set*>(&s)); }
void destroy(set* s) { delete reinterpret_cast<bvector*>(s); }
set_ptr wrap(bvector* b) { return set_ptr(reinterpret_cast<set*>(b), set_deleter{destroy}); }

const char* describe() {
    static const std::string text = bench_bitmagic::describe();
    return text.c_str();
}

set_ptr build(const std::uint32_t* positions, std::size_t count, std::uint64_t universe) {
    auto* b = new bvector(bm::BM_GAP);
    b->resize(static_cast<bvector::size_type>(universe));
    b->import_sorted(positions, static_cast<bvector::size_type>(count), false);
    BM_DECLARE_TEMP_BLOCK(temp)
    b->optimize(temp);
    return wrap(b);
}

// The 3-operand forms with on-the-fly compression (what BitMagic's documentation recommends
// over a copy followed by an in-place operation).
set_ptr combine(const set& a, const set& b, op which) {
    auto* r = new bvector(bm::BM_GAP);
    switch (which) {
        case op::and_: r->bit_and(of(a), of(b), bvector::opt_compress); break;
        case op::or_: r->bit_or(of(a), of(b), bvector::opt_compress); break;
        case op::xor_: r->bit_xor(of(a), of(b), bvector::opt_compress); break;
        case op::andnot: r->bit_sub(of(a), of(b), bvector::opt_compress); break;
    }
    return wrap(r);
}

std::uint64_t count(const set& s) { return of(s).count(); }
std::uint64_t and_count(const set& a, const set& b) { return bm::count_and(of(a), of(b)); }

std::uint64_t iterate_sum(const set& s) {
    std::uint64_t sum = 0;
    for (auto en = of(s).first(); en.valid(); ++en) sum += *en;
    return sum;
}

void to_positions(const set& s, std::vector<std::uint32_t>& out) {
    out.resize(of(s).count());
    std::size_t k = 0;
    for (auto en = of(s).first(); en.valid(); ++en) out[k++] = *en;
}

std::size_t serialized_bytes(const set& s) {
    bm::serializer<bvector> serializer;
    serializer.set_compression_level(bm::set_compression_default);
    bm::serializer<bvector>::buffer buffer;
    bvector optimized(of(s));
    BM_DECLARE_TEMP_BLOCK(temp)
    optimized.optimize(temp);
    serializer.serialize(optimized, buffer);
    return buffer.size();
}

std::uint64_t set_each(set& s, const std::uint32_t* positions, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) of(s).set_bit(positions[k]);
    return of(s).count();
}

set_ptr copy(const set& s) { return wrap(new bvector(of(s))); }

}  // namespace

const library& bitmagic() {
    static const library lib{"BitMagic", describe, build, combine, count, and_count, iterate_sum,
                             to_positions, serialized_bytes, set_each, copy};
    return lib;
}

}  // namespace bitset_peers
