// The transfer pipeline (include/bitplane/cuda/exec.hpp): host-resident blocks streamed to the
// device in batches over several streams, each batch reduced on its stream as soon as it lands.
#include "transfer.hpp"

#include <bitplane/error.hpp>

#include "dispatch.hpp"
#include "scratch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace bitplane::cuda::detail {

using dispatch::check;

void pinned_blocks::assign(const host_blocks& host) {
    const std::size_t count = host.blocks();
    const std::uint64_t total = host.bytes();
    const std::size_t offsets_at = (total + 63) / 64 * 64;
    memory = pinned_memory(offsets_at + 8 * (count + 1));
    auto* base = static_cast<std::byte*>(memory.get());
    const std::uint64_t sealed_bytes = host.offsets.empty() ? 0 : host.offsets[host.sealed];
    if (sealed_bytes != 0) std::memcpy(base, host.payload, sealed_bytes);
    if (!host.tail.empty()) std::memcpy(base + sealed_bytes, host.tail.data(), host.tail.size());
    auto* table = reinterpret_cast<std::uint64_t*>(base + offsets_at);
    if (count != 0) std::memcpy(table, host.offsets.data(), 8 * (count + 1));
    payload = base;
    offsets = table;
    blocks = count;
    size = host.size;
    bytes = total;
    is_signed = host.is_signed;
    contiguous = count;
    tail = nullptr;
}

host_view view_of(const host_blocks& h) noexcept {
    host_view v;
    v.payload = h.payload;
    v.contiguous = h.sealed;
    v.tail = h.tail.empty() ? nullptr : h.tail.data();
    v.offsets = h.offsets.data();
    v.blocks = h.blocks();
    v.size = h.size;
    v.bytes = h.bytes();
    v.pinned = false;
    return v;
}

host_view view_of(const pinned_blocks& p) noexcept {
    host_view v;
    v.payload = p.payload;
    v.contiguous = p.blocks;
    v.tail = nullptr;
    v.offsets = p.offsets;
    v.blocks = p.blocks;
    v.size = p.size;
    v.bytes = p.bytes;
    v.pinned = true;
    return v;
}

namespace {

// Streams of the pipeline, made once per thread and kept.
std::vector<cudaStream_t>& pipeline_streams(int count) {
    struct holder {
        std::vector<cudaStream_t> streams;
        ~holder() {
            for (cudaStream_t s : streams) (void)cudaStreamDestroy(s);
        }
    };
    static thread_local holder h;
    while (static_cast<int>(h.streams.size()) < count) {
        cudaStream_t s = nullptr;
        check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        h.streams.push_back(s);
    }
    return h.streams;
}

// Copies the payload bytes of blocks [first, last) of `v` to the same offsets of `device`.
void copy_blocks(const host_view& v, std::size_t first, std::size_t last, std::byte* device, cudaStream_t s) {
    const std::size_t main_last = std::min(last, v.contiguous);
    if (first < main_last) {
        const std::uint64_t from = v.offsets[first];
        check(cudaMemcpyAsync(device + from, v.payload + from, v.offsets[main_last] - from, cudaMemcpyHostToDevice, s),
              "transfer: payload");
    }
    if (last > v.contiguous && v.tail != nullptr) {
        const std::uint64_t from = v.offsets[v.contiguous];
        check(cudaMemcpyAsync(device + from, v.tail, v.offsets[v.contiguous + 1] - from, cudaMemcpyHostToDevice, s),
              "transfer: tail block");
    }
}

}  // namespace

uint128 transfer_dot(const host_view& a, const host_view& b, std::size_t blocks, bool is_signed,
                     const transfer_settings& settings) {
    if (blocks == 0) return 0;
    const dispatch::launch_params p = dispatch::params_for(blocks);
    const int stream_count = std::max(1, settings.streams > 0 ? settings.streams : p.streams);
    const std::size_t batch_bytes = std::max<std::size_t>(settings.batch_bytes > 0 ? settings.batch_bytes : p.batch_bytes, 1);
    std::vector<cudaStream_t>& streams = pipeline_streams(stream_count);

    // Batches: runs of blocks holding about batch_bytes of operand a's payload.
    std::vector<std::size_t> cuts{0};
    while (cuts.back() < blocks) {
        const std::size_t from = cuts.back();
        const std::uint64_t goal = a.offsets[from] + batch_bytes;
        const std::uint64_t* end = std::upper_bound(a.offsets + from + 1, a.offsets + blocks + 1, goal);
        std::size_t next = static_cast<std::size_t>(end - a.offsets) - 1;
        next = std::clamp<std::size_t>(next, from + 1, blocks);
        cuts.push_back(next);
    }
    const std::size_t batches = cuts.size() - 1;
    std::size_t largest = 0;
    for (std::size_t i = 0; i < batches; ++i) largest = std::max(largest, cuts[i + 1] - cuts[i]);

    const std::uint64_t bytes_a = a.offsets[blocks];
    const std::uint64_t bytes_b = b.offsets[blocks];
    auto* da = static_cast<std::byte*>(device_scratch(scratch_slot::payload_a, bytes_a + 16));
    auto* db = static_cast<std::byte*>(device_scratch(scratch_slot::payload_b, bytes_b + 16));
    auto* oa = static_cast<std::uint64_t*>(device_scratch(scratch_slot::offsets_a, 8 * (blocks + 1)));
    auto* ob = static_cast<std::uint64_t*>(device_scratch(scratch_slot::offsets_b, 8 * (blocks + 1)));
    const std::size_t per_stream = dispatch::dot_scratch_bytes(largest, p);
    auto* scratch_base = static_cast<unsigned char*>(
        device_scratch(scratch_slot::reduce, per_stream * static_cast<std::size_t>(stream_count)));
    std::vector<dispatch::dot_scratch> scratch;
    for (int i = 0; i < stream_count; ++i) {
        scratch.push_back(dispatch::dot_scratch_at(scratch_base + per_stream * static_cast<std::size_t>(i), largest, p));
        check(cudaMemsetAsync(scratch.back().result, 0, 16, streams[static_cast<std::size_t>(i)]), "transfer: cudaMemsetAsync");
    }
    // The padding after each payload (never copied from the host) is zeroed once.
    check(cudaMemsetAsync(da + bytes_a, 0, 16, streams[0]), "transfer: cudaMemsetAsync");
    check(cudaMemsetAsync(db + bytes_b, 0, 16, streams[0]), "transfer: cudaMemsetAsync");
    check(cudaStreamSynchronize(streams[0]), "transfer: cudaStreamSynchronize");

    const dispatch::device_blocks_ref ra{reinterpret_cast<const std::uint8_t*>(da), oa, blocks, a.size};
    const dispatch::device_blocks_ref rb{reinterpret_cast<const std::uint8_t*>(db), ob, blocks, b.size};
    for (std::size_t i = 0; i < batches; ++i) {
        const std::size_t slot = i % static_cast<std::size_t>(stream_count);
        cudaStream_t s = streams[slot];
        const std::size_t first = cuts[i];
        const std::size_t last = cuts[i + 1];
        // Offsets [first, last]: the kernels read each block's end (its size) too. Entry `last`
        // is also the next batch's first entry, copied there again with the same value.
        check(cudaMemcpyAsync(oa + first, a.offsets + first, 8 * (last - first + 1), cudaMemcpyHostToDevice, s),
              "transfer: offsets");
        check(cudaMemcpyAsync(ob + first, b.offsets + first, 8 * (last - first + 1), cudaMemcpyHostToDevice, s),
              "transfer: offsets");
        copy_blocks(a, first, last, da, s);
        copy_blocks(b, first, last, db, s);
        dispatch::enqueue_dot(ra, rb, is_signed, first, last, scratch[slot], s);
    }
    auto* host = static_cast<std::uint64_t*>(pinned_scratch(16 * static_cast<std::size_t>(stream_count)));
    for (int i = 0; i < stream_count; ++i)
        check(cudaMemcpyAsync(host + 2 * i, scratch[static_cast<std::size_t>(i)].result, 16, cudaMemcpyDeviceToHost,
                              streams[static_cast<std::size_t>(i)]),
              "transfer: result");
    uint128 total = 0;
    for (int i = 0; i < stream_count; ++i) {
        check(cudaStreamSynchronize(streams[static_cast<std::size_t>(i)]), "transfer: cudaStreamSynchronize");
        total += (static_cast<uint128>(host[2 * i + 1]) << 64) | host[2 * i];
    }
    return total;
}

uint128 pinned_dot(const pinned_blocks& a, const pinned_blocks& b, bool is_signed, int streams,
                   std::size_t batch_bytes) {
    return transfer_dot(view_of(a), view_of(b), a.blocks, is_signed, {streams, batch_bytes});
}

}  // namespace bitplane::cuda::detail
