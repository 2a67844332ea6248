// CRoaring 5.x side of bench_bitset_peers (bitset_peers.hpp): roaring_bitmap_t through the C API,
// with the library's own runtime choice of AVX2 / AVX-512 code.
#include "bitset_peers.hpp"

#include <roaring/isadetection.h>
#include <roaring/roaring.h>

#include <string>

namespace bitset_peers {

namespace {

roaring_bitmap_t* of(const set& s) { return reinterpret_cast<roaring_bitmap_t*>(const_cast<set*>(&s)); }
void destroy(set* s) { roaring_bitmap_free(reinterpret_cast<roaring_bitmap_t*>(s)); }
set_ptr wrap(roaring_bitmap_t* r) { return set_ptr(reinterpret_cast<set*>(r), set_deleter{destroy}); }

const char* describe() {
    using namespace roaring::internal;
    const int simd = croaring_hardware_support();
    static const std::string text = std::string("CRoaring ") + ROARING_VERSION + ", " +
                                    ((simd & ROARING_SUPPORTS_AVX512) != 0 ? "AVX-512"
                                     : (simd & ROARING_SUPPORTS_AVX2) != 0 ? "AVX2"
                                                                            : "no AVX2");
    return text.c_str();
}

set_ptr build(const std::uint32_t* positions, std::size_t count, std::uint64_t) {
    roaring_bitmap_t* r = roaring_bitmap_create();
    roaring_bitmap_add_many(r, count, positions);
    roaring_bitmap_run_optimize(r);
    roaring_bitmap_shrink_to_fit(r);
    return wrap(r);
}

set_ptr combine(const set& a, const set& b, op which) {
    switch (which) {
        case op::and_: return wrap(roaring_bitmap_and(of(a), of(b)));
        case op::or_: return wrap(roaring_bitmap_or(of(a), of(b)));
        case op::xor_: return wrap(roaring_bitmap_xor(of(a), of(b)));
        case op::andnot: return wrap(roaring_bitmap_andnot(of(a), of(b)));
    }
    return nullptr;
}

std::uint64_t count(const set& s) { return roaring_bitmap_get_cardinality(of(s)); }
std::uint64_t and_count(const set& a, const set& b) { return roaring_bitmap_and_cardinality(of(a), of(b)); }

std::uint64_t iterate_sum(const set& s) {
    std::uint64_t sum = 0;
    roaring_uint32_iterator_t it;
    roaring_iterator_init(of(s), &it);
    for (; it.has_value; roaring_uint32_iterator_advance(&it)) sum += it.current_value;
    return sum;
}

void to_positions(const set& s, std::vector<std::uint32_t>& out) {
    out.resize(roaring_bitmap_get_cardinality(of(s)));
    roaring_bitmap_to_uint32_array(of(s), out.data());
}

std::size_t serialized_bytes(const set& s) { return roaring_bitmap_portable_size_in_bytes(of(s)); }

std::uint64_t set_each(set& s, const std::uint32_t* positions, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) roaring_bitmap_add(of(s), positions[k]);
    return roaring_bitmap_get_cardinality(of(s));
}

set_ptr copy(const set& s) { return wrap(roaring_bitmap_copy(of(s))); }

}  // namespace

const library& croaring() {
    static const library lib{"CRoaring", describe, build, combine, count, and_count, iterate_sum,
                             to_positions, serialized_bytes, set_each, copy};
    return lib;
}

}  // namespace bitset_peers
