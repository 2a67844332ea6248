// Host entry points of device_bitset (include/bitplane/cuda/device_bitset.hpp): upload and
// download of the encoded form (the host core's entries and payload bytes, copied as they are),
// download of the dense form (encoded on the host block by block), count, set algebra.
#include <bitplane/cuda/device_bitset.hpp>
#include <bitplane/error.hpp>

#include "bitset/bitset_core.hpp"
#include "dispatch.hpp"
#include "scratch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace bitplane::cuda {

using dispatch::check;

namespace {

constexpr std::uint8_t record_empty = 0;
constexpr std::uint8_t record_full = 0x80;

dispatch::device_bitset_ref ref_of(const detail::device_bitset_storage& s) {
    dispatch::device_bitset_ref r;
    if (s.dense) {
        r.words = static_cast<const std::uint32_t*>(s.words.get());
    } else {
        r.records = s.records.get();
        r.arena = static_cast<const std::uint8_t*>(s.arena.get());
    }
    r.size = s.size;
    r.blocks = s.blocks;
    return r;
}

std::size_t blocks_of(std::size_t size) { return (size + block_values - 1) / block_values; }

}  // namespace

void device_bitset::upload(const bitset& host, stream_t stream) {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const bitplane::detail::bitset_core& core = host.core();
    const std::size_t blocks = core.block_count();
    // One record per block: the stored entry, or empty / full (from the summary words).
    std::vector<bitplane::detail::block_entry> records(blocks);
    std::uint64_t arena_bytes = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        const bitplane::detail::summary_word& w = core.words()[b / 64];
        const std::uint64_t bit = std::uint64_t{1} << (b % 64);
        bitplane::detail::block_entry& r = records[b];
        if ((w.full & bit) != 0) {
            r.kind = static_cast<bitplane::detail::block_kind>(record_full);
        } else if ((w.nonempty & bit) != 0) {
            r = core.entries()[core.entry_index(b)];
            if (!r.inline_payload)
                arena_bytes = std::max<std::uint64_t>(arena_bytes, r.offset + payload_size(r, core.block_len(b)));
        } else {
            r.kind = static_cast<bitplane::detail::block_kind>(record_empty);
        }
    }
    detail::device_bitset_storage next;
    next.size = core.size();
    next.blocks = blocks;
    next.dense = false;
    next.known_count = static_cast<std::int64_t>(core.count());
    next.records = detail::device_memory(std::max<std::size_t>(16, 16 * blocks));
    next.arena = detail::device_memory(arena_bytes + 16);
    if (blocks != 0)
        check(cudaMemcpyAsync(next.records.get(), records.data(), 16 * blocks, cudaMemcpyHostToDevice, s),
              "device_bitset upload: records");
    if (arena_bytes != 0)
        check(cudaMemcpyAsync(next.arena.get(), core.arena(), arena_bytes, cudaMemcpyHostToDevice, s),
              "device_bitset upload: payloads");
    check(cudaMemsetAsync(static_cast<std::byte*>(next.arena.get()) + arena_bytes, 0, 16, s),
          "device_bitset upload: padding");
    // The records are pageable host memory: CUDA has staged them before the copy returns.
    storage_ = std::move(next);
}

bitset device_bitset::download(stream_t stream) const {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const std::size_t blocks = storage_.blocks;
    if (storage_.dense) {
        std::vector<std::uint32_t> words(plane_words * blocks);
        if (blocks != 0)
            check(cudaMemcpyAsync(words.data(), storage_.words.get(), 4 * words.size(), cudaMemcpyDeviceToHost, s),
                  "device_bitset download: words");
        check(cudaStreamSynchronize(s), "device_bitset download: cudaStreamSynchronize");
        bitplane::detail::bitset_builder builder(storage_.size);
        plane bits{};
        for (std::size_t b = 0; b < blocks; ++b) {
            std::memcpy(bits.data(), words.data() + plane_words * b, sizeof bits);
            builder.set_block(b, bits);
        }
        return builder.finish();
    }
    std::vector<bitplane::detail::block_entry> records(blocks);
    std::vector<std::byte> arena(storage_.arena.size());
    if (blocks != 0)
        check(cudaMemcpyAsync(records.data(), storage_.records.get(), 16 * blocks, cudaMemcpyDeviceToHost, s),
              "device_bitset download: records");
    if (!arena.empty())
        check(cudaMemcpyAsync(arena.data(), storage_.arena.get(), arena.size(), cudaMemcpyDeviceToHost, s),
              "device_bitset download: payloads");
    check(cudaStreamSynchronize(s), "device_bitset download: cudaStreamSynchronize");
    std::size_t stored = 0;
    for (const auto& r : records) stored += static_cast<std::uint8_t>(r.kind) != record_empty;
    bitplane::detail::core_writer writer(storage_.size, stored, arena.size());
    for (std::size_t b = 0; b < blocks; ++b) {
        const auto kind = static_cast<std::uint8_t>(records[b].kind);
        if (kind == record_full) {
            writer.add_full(b);
        } else if (kind != record_empty) {
            writer.add_copy(b, records[b], bitplane::detail::payload_of(records[b], arena.data()));
        }
    }
    return bitplane::detail::bitset_access::make(writer.finish());
}

std::uint64_t device_bitset::count(stream_t stream) const {
    if (storage_.known_count >= 0) return static_cast<std::uint64_t>(storage_.known_count);
    if (storage_.blocks == 0) return 0;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    auto* counter = static_cast<unsigned long long*>(detail::device_scratch(detail::scratch_slot::reduce, 256));
    check(cudaMemsetAsync(counter, 0, 8, s), "device_bitset count: cudaMemsetAsync");
    dispatch::enqueue_bitset_count(ref_of(storage_), counter, s);
    auto* host = static_cast<unsigned long long*>(detail::pinned_scratch(16));
    check(cudaMemcpyAsync(host, counter, 8, cudaMemcpyDeviceToHost, s), "device_bitset count: result");
    check(cudaStreamSynchronize(s), "device_bitset count: cudaStreamSynchronize");
    return *host;
}

device_bitset device_bitset::uninitialized_dense(std::size_t size) {
    device_bitset out;
    out.storage_.size = size;
    out.storage_.blocks = blocks_of(size);
    out.storage_.dense = true;
    out.storage_.words = detail::device_memory(std::max<std::size_t>(16, 4 * plane_words * out.storage_.blocks));
    return out;
}

device_bitset device_bitset::to_dense(stream_t stream) const {
    device_bitset out = uninitialized_dense(storage_.size);
    dispatch::enqueue_bitset_expand(ref_of(storage_), static_cast<std::uint32_t*>(out.storage_.words.get()),
                                    reinterpret_cast<cudaStream_t>(stream));
    out.storage_.known_count = storage_.known_count;
    return out;
}

namespace {

device_bitset algebra(const device_bitset& a, const device_bitset& b, unsigned op, const char* what, stream_t stream) {
    if (a.size() != b.size())
        throw size_error(std::string("bitplane::cuda::") + what + ": sizes differ (" + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + " bits)");
    device_bitset out = device_bitset::uninitialized_dense(a.size());
    dispatch::enqueue_bitset_algebra(ref_of(a.storage()), ref_of(b.storage()), op,
                                     static_cast<std::uint32_t*>(out.storage().words.get()),
                                     reinterpret_cast<cudaStream_t>(stream));
    return out;
}

}  // namespace

device_bitset bitset_and(const device_bitset& a, const device_bitset& b, stream_t stream) {
    return algebra(a, b, dispatch::op_and, "bitset_and", stream);
}
device_bitset bitset_or(const device_bitset& a, const device_bitset& b, stream_t stream) {
    return algebra(a, b, dispatch::op_or, "bitset_or", stream);
}
device_bitset bitset_xor(const device_bitset& a, const device_bitset& b, stream_t stream) {
    return algebra(a, b, dispatch::op_xor, "bitset_xor", stream);
}
device_bitset bitset_andnot(const device_bitset& a, const device_bitset& b, stream_t stream) {
    return algebra(a, b, dispatch::op_andnot, "bitset_andnot", stream);
}

}  // namespace bitplane::cuda
