// Similarity of bit positions and of vectors (include/bitplane/similarity.hpp), on the value
// planes of each block (ops/block_view.hpp), in parallel over blocks.
//
//   block / plane Hamming matrix  pair_popcounts over the 32 value planes (the kernel skips
//                                 the pair scans of all-zero and all-one planes)
//   cross Hamming matrix          pop(A_i XOR B_j) = pop(A_i) + pop(B_j) - 2 pop(A_i AND B_j),
//                                 the AND matrix over the non-zero planes only
//   jaccard                       sum_j pop(A_j AND B_j) over sum_j pop(A_j OR B_j), with
//                                 pop(A OR B) = pop(A) + pop(B) - pop(A AND B)
#include <bitplane/similarity.hpp>

#include <bitplane/error.hpp>

#include "ops/block_view.hpp"
#include "ops/reduce_support.hpp"
#include "simd/kernels.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace bitplane::detail {
namespace {

// The Hamming matrix of the value planes of one block.
hamming_matrix view_hamming(block_view& view, block_planes& scratch, const kernel_table& kernels) {
    std::uint32_t nonzero = 0;
    const block_planes& planes = all_value_planes(view, scratch, nonzero);
    static_assert(sizeof(hamming_matrix) == plane_count * plane_count * sizeof(std::uint16_t));
    hamming_matrix m;
    kernels.pair_popcounts(planes.planes[0].data(), plane_count, m[0].data());
    return m;
}

void add_matrix(plane_matrix& total, const plane_matrix& part) noexcept {
    for (std::size_t i = 0; i < plane_count; ++i) {
        for (std::size_t j = 0; j < plane_count; ++j) total[i][j] += part[i][j];
    }
}

// The non-zero value planes of a block: pointers, plane numbers and popcounts.
struct nonzero_planes {
    std::uint32_t mask = 0;
    std::uint32_t count = 0;
    const std::uint32_t* words[plane_count];
    unsigned index[plane_count];
    std::uint64_t pops[plane_count];  // by plane number; zero for the all-zero planes
};

void gather(const block_planes& planes, std::uint32_t nonzero, const kernel_table& kernels, nonzero_planes& out) {
    out.mask = nonzero;
    out.count = 0;
    for (std::size_t j = 0; j < plane_count; ++j) {
        out.pops[j] = 0;
        if (((nonzero >> j) & 1u) == 0) continue;
        out.words[out.count] = planes.planes[j].data();
        out.index[out.count] = static_cast<unsigned>(j);
        out.pops[j] = kernels.popcount_words(planes.planes[j].data(), plane_words);
        ++out.count;
    }
}

// Bit counts over the whole vectors for jaccard.
struct overlap {
    std::uint64_t both = 0;   // pop(a AND b)
    std::uint64_t total = 0;  // pop(a) + pop(b)
};

}  // namespace
}  // namespace bitplane::detail

namespace bitplane {

template <column_value T>
hamming_matrix block_hamming_matrix(const vector<T>& v, std::size_t block) {
    if (block >= v.block_count())
        throw index_error("bitplane::block_hamming_matrix: block " + std::to_string(block) + " >= block count " +
                          std::to_string(v.block_count()));
    detail::block_view view;
    detail::view_block(v.core(), block, view);
    block_planes scratch;
    return detail::view_hamming(view, scratch, detail::active_kernels());
}

template <column_value T>
plane_matrix plane_hamming_matrix(const vector<T>& v) {
    const detail::vector_core& core = v.core();
    return detail::reduce_blocks<plane_matrix>(
        core.block_count(),
        [&](std::size_t first, std::size_t last, plane_matrix& part) {
            const detail::kernel_table& kernels = detail::active_kernels();
            detail::block_view view;
            block_planes scratch;
            for (std::size_t block = first; block < last; ++block) {
                detail::view_block(core, block, view);
                const hamming_matrix m = detail::view_hamming(view, scratch, kernels);
                for (std::size_t i = 0; i < plane_count; ++i) {
                    for (std::size_t j = 0; j < plane_count; ++j) part[i][j] += m[i][j];
                }
            }
        },
        detail::add_matrix);
}

template <column_value T>
plane_matrix cross_hamming_matrix(const vector<T>& a, const vector<T>& b) {
    detail::check_same_size("cross_hamming_matrix", a.size(), b.size());
    const detail::vector_core& ca = a.core();
    const detail::vector_core& cb = b.core();
    return detail::reduce_blocks<plane_matrix>(
        ca.block_count(),
        [&](std::size_t first, std::size_t last, plane_matrix& part) {
            const detail::kernel_table& kernels = detail::active_kernels();
            detail::block_view va;
            detail::block_view vb;
            block_planes sa;
            block_planes sb;
            detail::nonzero_planes na;
            detail::nonzero_planes nb;
            std::uint32_t c[plane_count * plane_count];
            for (std::size_t block = first; block < last; ++block) {
                detail::view_block(ca, block, va);
                detail::view_block(cb, block, vb);
                std::uint32_t nz_a = 0;
                std::uint32_t nz_b = 0;
                const block_planes& pa = detail::value_planes(va, sa, nz_a);
                const block_planes& pb = detail::value_planes(vb, sb, nz_b);
                detail::gather(pa, nz_a, kernels, na);
                detail::gather(pb, nz_b, kernels, nb);
                if (na.count != 0 && nb.count != 0)
                    kernels.and_popcounts(na.words, na.count, nb.words, nb.count, plane_words, c);
                // pop(A_i XOR B_j) = pop(A_i) + pop(B_j) - 2 pop(A_i AND B_j); zero planes AND to 0.
                for (std::size_t i = 0; i < plane_count; ++i) {
                    for (std::size_t j = 0; j < plane_count; ++j) part[i][j] += na.pops[i] + nb.pops[j];
                }
                for (std::uint32_t t = 0; t < na.count; ++t) {
                    for (std::uint32_t u = 0; u < nb.count; ++u) {
                        part[na.index[t]][nb.index[u]] -= 2 * std::uint64_t{c[t * nb.count + u]};
                    }
                }
            }
        },
        detail::add_matrix);
}

template <column_value T>
double jaccard(const vector<T>& a, const vector<T>& b) {
    detail::check_same_size("jaccard", a.size(), b.size());
    const detail::vector_core& ca = a.core();
    const detail::vector_core& cb = b.core();
    const detail::overlap o = detail::reduce_blocks<detail::overlap>(
        ca.block_count(),
        [&](std::size_t first, std::size_t last, detail::overlap& part) {
            const detail::kernel_table& kernels = detail::active_kernels();
            detail::block_view va;
            detail::block_view vb;
            block_planes sa;
            block_planes sb;
            for (std::size_t block = first; block < last; ++block) {
                detail::view_block(ca, block, va);
                detail::view_block(cb, block, vb);
                std::uint32_t nz_a = 0;
                std::uint32_t nz_b = 0;
                const block_planes& pa = detail::value_planes(va, sa, nz_a);
                const block_planes& pb = detail::value_planes(vb, sb, nz_b);
                for (std::uint32_t nz = nz_a; nz != 0; nz &= nz - 1) {
                    part.total += kernels.popcount_words(pa.planes[std::countr_zero(nz)].data(), plane_words);
                }
                for (std::uint32_t nz = nz_b; nz != 0; nz &= nz - 1) {
                    part.total += kernels.popcount_words(pb.planes[std::countr_zero(nz)].data(), plane_words);
                }
                for (std::uint32_t nz = nz_a & nz_b; nz != 0; nz &= nz - 1) {
                    const auto j = static_cast<std::size_t>(std::countr_zero(nz));
                    const std::uint32_t* x = pa.planes[j].data();
                    const std::uint32_t* y = pb.planes[j].data();
                    std::uint32_t n = 0;
                    kernels.and_popcounts(&x, 1, &y, 1, plane_words, &n);
                    part.both += n;
                }
            }
        },
        [](detail::overlap& t, const detail::overlap& part) {
            t.both += part.both;
            t.total += part.total;
        });
    const std::uint64_t either = o.total - o.both;  // pop(a OR b)
    return either == 0 ? 1.0 : static_cast<double>(o.both) / static_cast<double>(either);
}

template hamming_matrix block_hamming_matrix(const vector<std::uint32_t>&, std::size_t);
template hamming_matrix block_hamming_matrix(const vector<std::int32_t>&, std::size_t);
template plane_matrix plane_hamming_matrix(const vector<std::uint32_t>&);
template plane_matrix plane_hamming_matrix(const vector<std::int32_t>&);
template plane_matrix cross_hamming_matrix(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template plane_matrix cross_hamming_matrix(const vector<std::int32_t>&, const vector<std::int32_t>&);
template double jaccard(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template double jaccard(const vector<std::int32_t>&, const vector<std::int32_t>&);

}  // namespace bitplane
