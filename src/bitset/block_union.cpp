// OR and XOR of two stored blocks, by the operands' encodings:
//   sparse with sparse   the union of their sorted positions (bitset_kernels.hpp): a small
//                        merge, or the vector kernel, then encoded from positions;
//   runs with runs       a merge of the two run lists (OR: overlapping runs joined; XOR: the
//                        bounds of both, those present twice cancelled), encoded from runs;
//   anything else        the SIMD kernel on the two blocks (raw payloads read in place, other
//                        kinds spread into a plane), writing the result straight into the
//                        output's arena and counting it in the same pass (core_writer::add_computed).
#include "bitset/block_spread.hpp"

namespace bitplane::detail {

namespace {

// Runs of a stored runs block as bounds (begin, end, begin, end, ...); returns the run count.
std::uint32_t runs_bounds(const block_ref& r, std::uint16_t* out) noexcept {
    const std::uint32_t runs = r.entry->items;
    for (std::uint32_t i = 0; i < 2 * runs; ++i) out[i] = load_le<std::uint16_t>(r.payload + 2 * i);
    return runs;
}

// Union of two run lists: runs that overlap or touch are joined. Returns the runs written.
std::uint32_t union_runs(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                         std::uint16_t* out, std::uint32_t& count) noexcept {
    std::uint32_t i = 0, j = 0, k = 0, total = 0;
    std::uint32_t begin = 0, end = 0;
    bool open = false;
    while (i < n || j < m) {
        const std::uint16_t* r;
        if (j >= m || (i < n && a[2 * i] <= b[2 * j])) {
            r = a + 2 * i++;
        } else {
            r = b + 2 * j++;
        }
        if (open && r[0] <= end) {
            end = std::max<std::uint32_t>(end, r[1]);
            continue;
        }
        if (open) {
            out[2 * k] = static_cast<std::uint16_t>(begin);
            out[2 * k + 1] = static_cast<std::uint16_t>(end);
            total += end - begin;
            ++k;
        }
        begin = r[0];
        end = r[1];
        open = true;
    }
    if (open) {
        out[2 * k] = static_cast<std::uint16_t>(begin);
        out[2 * k + 1] = static_cast<std::uint16_t>(end);
        total += end - begin;
        ++k;
    }
    count = total;
    return k;
}

// Symmetric difference of two run lists: the sorted merge of both bound lists, a bound present
// in both cancelled (each bound toggles membership from there on). Returns the runs written.
std::uint32_t xor_runs(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                       std::uint16_t* out, std::uint32_t& count) noexcept {
    std::uint32_t i = 0, j = 0, k = 0;
    n *= 2;
    m *= 2;
    while (i < n && j < m) {
        if (a[i] == b[j]) {
            ++i;
            ++j;
        } else if (a[i] < b[j]) {
            out[k++] = a[i++];
        } else {
            out[k++] = b[j++];
        }
    }
    while (i < n) out[k++] = a[i++];
    while (j < m) out[k++] = b[j++];
    std::uint32_t total = 0;
    for (std::uint32_t r = 0; r < k; r += 2) total += std::uint32_t{out[r + 1]} - out[r];
    count = total;
    return k / 2;
}

template <bool Xor>
void unite(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
           const block_context& c) {
    const bitset_kernel_table& k = c.kernels;
    const block_kind ka = a.entry->kind, kb = b.entry->kind;
    if (is_sparse(ka) && is_sparse(kb)) {
        if (std::uint32_t{a.entry->count} + b.entry->count <= thresholds::bitset_merge_max_items) {
            constexpr std::uint32_t most = thresholds::bitset_merge_max_items;
            position_buffer<most> pa, pb;
            position_buffer<most + 24> result;
            const std::uint32_t n = block_positions(*a.entry, a.payload, len, pa.data(), k);
            const std::uint32_t m = block_positions(*b.entry, b.payload, len, pb.data(), k);
            std::uint32_t size;
            if (n + m <= thresholds::bitset_few_items) {
                size = merge_positions<Xor>(pa.data(), n, pb.data(), m, result.data());
            } else {
                size = Xor ? k.xor_positions(pa.data(), n, pb.data(), m, result.data())
                           : k.union_positions(pa.data(), n, pb.data(), m, result.data());
            }
            out.add_positions(block, result.data(), size);
            return;
        }
    } else if (ka == block_kind::runs && kb == block_kind::runs) {
        // Bounds of up to 1024 runs a side; the union or XOR has at most the sum of both.
        std::uint16_t ra[2 * block_values / 2 + 8], rb[2 * block_values / 2 + 8], result[4 * block_values / 2 + 8];
        const std::uint32_t n = runs_bounds(a, ra);
        const std::uint32_t m = runs_bounds(b, rb);
        std::uint32_t count = 0;
        const std::uint32_t runs = Xor ? xor_runs(ra, n, rb, m, result, count) : union_runs(ra, n, rb, m, result, count);
        out.add_runs(block, result, runs, count);
        return;
    }
    plane sa, sb;
    const void* x = spread_block(a, len, sa, k);
    const void* y = spread_block(b, len, sb, k);
    out.add_computed(block, [&](std::byte* at) { return Xor ? k.xor_blocks(x, y, at) : k.or_blocks(x, y, at); });
}

}  // namespace

void or_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
               const block_context& c) {
    unite<false>(out, block, len, a, b, c);
}

void xor_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                const block_context& c) {
    unite<true>(out, block, len, a, b, c);
}

}  // namespace bitplane::detail
