// Host entry points of device_vector (include/bitplane/cuda/device_vector.hpp): memory owners,
// gathering a vector's blocks for a transfer, upload, download, decode, sum and dot.
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>

#include "core/vector_access.hpp"
#include "dispatch.hpp"
#include "scratch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <utility>

namespace bitplane::cuda::detail {

using dispatch::check;

// ---- memory owners --------------------------------------------------------------------------

device_memory::device_memory(std::size_t bytes) : bytes_(bytes) {
    if (bytes != 0) check(cudaMalloc(&data_, bytes), "cudaMalloc");
}
device_memory::~device_memory() {
    if (data_ != nullptr) (void)cudaFree(data_);
}
device_memory::device_memory(device_memory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
device_memory& device_memory::operator=(device_memory&& other) noexcept {
    if (this != &other) {
        if (data_ != nullptr) (void)cudaFree(data_);
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

pinned_memory::pinned_memory(std::size_t bytes) : bytes_(bytes) {
    if (bytes != 0) check(cudaMallocHost(&data_, bytes), "cudaMallocHost");
}
pinned_memory::~pinned_memory() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
}
pinned_memory::pinned_memory(pinned_memory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
pinned_memory& pinned_memory::operator=(pinned_memory&& other) noexcept {
    if (this != &other) {
        if (data_ != nullptr) (void)cudaFreeHost(data_);
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

// ---- scratch ----------------------------------------------------------------------------------

namespace {

struct thread_scratch {
    std::array<device_memory, static_cast<std::size_t>(scratch_slot::count)> device;
    pinned_memory pinned;
};

thread_scratch& scratch() {
    static thread_local thread_scratch s;
    return s;
}

std::size_t grown(std::size_t bytes) { return std::max<std::size_t>(bytes + bytes / 4, 4096); }

constexpr std::size_t padding = 16;  // readable bytes after a payload (kernels/block_device.cuh)

}  // namespace

void* device_scratch(scratch_slot slot, std::size_t bytes) {
    device_memory& m = scratch().device[static_cast<std::size_t>(slot)];
    if (m.size() < bytes) {
        m = device_memory();
        m = device_memory(grown(bytes));
    }
    return m.get();
}

void* pinned_scratch(std::size_t bytes) {
    pinned_memory& m = scratch().pinned;
    if (m.size() < bytes) {
        m = pinned_memory();
        m = pinned_memory(grown(bytes));
    }
    return m.get();
}

// ---- gathering --------------------------------------------------------------------------------

host_blocks gather_blocks(const bitplane::detail::vector_core& core) {
    host_blocks h;
    h.size = core.size();
    h.is_signed = core.is_signed();
    h.sealed = core.sealed_block_count();
    const std::size_t blocks = core.block_count();
    h.offsets.assign(blocks + 1, 0);
    std::array<std::byte, codec::max_block_bytes> buffer;
    bool in_order = true;
    const std::byte* base = nullptr;
    std::uint64_t at = 0;
    for (std::size_t b = 0; b < h.sealed; ++b) {
        const std::span<const std::byte> bytes = core.sealed_block(b, buffer);
        if (b == 0) base = bytes.data();
        if (bytes.data() == buffer.data() || bytes.data() != base + at) in_order = false;
        h.offsets[b] = at;
        at += bytes.size();
    }
    h.offsets[h.sealed] = at;
    if (in_order) {
        h.payload = base;
    } else {
        h.staging.resize(at);
        for (std::size_t b = 0; b < h.sealed; ++b) {
            const std::span<const std::byte> bytes = core.sealed_block(b, buffer);
            std::memcpy(h.staging.data() + h.offsets[b], bytes.data(), bytes.size());
        }
        h.payload = h.staging.data();
    }
    if (blocks > h.sealed) {
        h.tail.resize(codec::max_block_bytes);
        const std::size_t n = codec::encode_block(core.tail(), core.is_signed(), h.tail);
        h.tail.resize(n);
        h.offsets[blocks] = at + n;
    }
    return h;
}

// ---- device_blocks ----------------------------------------------------------------------------

namespace {

dispatch::device_blocks_ref ref_of(const device_blocks& v) {
    return {static_cast<const std::uint8_t*>(v.payload.get()), static_cast<const std::uint64_t*>(v.offsets.get()),
            v.blocks, v.size};
}

}  // namespace

void device_blocks::upload(const bitplane::detail::vector_core& core, stream_t stream) {
    upload(gather_blocks(core), stream);
}

void device_blocks::upload(const host_blocks& host, stream_t stream) {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const std::size_t count = host.blocks();
    const std::uint64_t total = host.bytes();
    // Buffers already large enough are reused: replacing them would cudaFree the old ones,
    // which waits for the whole device. While they are rewritten the vector is empty, so a
    // failed copy leaves it empty rather than half old, half new.
    const bool reuse = payload.size() >= total + padding && offsets.size() >= 8 * (count + 1);
    if (reuse) {
        blocks = 0;
        size = 0;
    }
    device_memory new_payload = reuse ? std::move(payload) : device_memory(total + padding);
    device_memory new_offsets = reuse ? std::move(offsets) : device_memory(8 * (count + 1));
    auto* p = static_cast<std::byte*>(new_payload.get());
    check(cudaMemsetAsync(p + total, 0, padding, s), "upload: cudaMemsetAsync");
    const std::uint64_t sealed_bytes = host.offsets.empty() ? 0 : host.offsets[host.sealed];
    if (sealed_bytes != 0)
        check(cudaMemcpyAsync(p, host.payload, sealed_bytes, cudaMemcpyHostToDevice, s), "upload: payload");
    if (!host.tail.empty())
        check(cudaMemcpyAsync(p + sealed_bytes, host.tail.data(), host.tail.size(), cudaMemcpyHostToDevice, s),
              "upload: tail block");
    if (count != 0)
        check(cudaMemcpyAsync(new_offsets.get(), host.offsets.data(), 8 * (count + 1), cudaMemcpyHostToDevice, s),
              "upload: offsets");
    // Pageable sources are staged by CUDA before cudaMemcpyAsync returns, so `host` may go.
    payload = std::move(new_payload);
    offsets = std::move(new_offsets);
    blocks = count;
    size = host.size;
    bytes = total;
    is_signed = host.is_signed;
}

namespace {

void download_into(const device_blocks& from, bitplane::detail::vector_core& core, stream_t stream) {
    const device_memory& payload = from.payload;
    const device_memory& offsets = from.offsets;
    const std::size_t blocks = from.blocks, size = from.size;
    const bool is_signed = from.is_signed;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    // The offsets first (small), then the sealed blocks straight into the new vector's own
    // storage (adopt_filled: not zeroed, copied once) and the partial last block, decoded
    // here, into a block-sized buffer: a 2^28-value download was a zeroed staging buffer,
    // the copy, and a second copy into the vector, 531 ms for 336 MB on the H100 machine.
    std::vector<std::uint64_t> table(blocks + 1, 0);
    if (blocks != 0) {
        check(cudaMemcpyAsync(table.data(), offsets.get(), 8 * (blocks + 1), cudaMemcpyDeviceToHost, s),
              "download: offsets");
        check(cudaStreamSynchronize(s), "download: cudaStreamSynchronize");
    }
    const std::size_t sealed = size / block_values;
    std::vector<std::uint32_t> sizes(sealed);
    for (std::size_t b = 0; b < sealed; ++b) sizes[b] = static_cast<std::uint32_t>(table[b + 1] - table[b]);
    std::vector<std::uint32_t> tail(size - sealed * block_values);
    std::array<std::byte, codec::max_block_bytes> tail_block;
    const std::size_t tail_bytes = tail.empty() ? 0 : static_cast<std::size_t>(table[sealed + 1] - table[sealed]);
    if (tail_bytes > tail_block.size()) throw cuda_error("download: the partial last block is larger than any block can be");
    bitplane::detail::vector_core out(is_signed);
    out.adopt_filled(
        static_cast<std::size_t>(table[sealed]),
        [&](std::span<std::byte> arena) {
            if (!arena.empty())
                check(cudaMemcpyAsync(arena.data(), payload.get(), arena.size(), cudaMemcpyDeviceToHost, s), "download: payload");
            if (tail_bytes != 0)
                check(cudaMemcpyAsync(tail_block.data(), static_cast<const std::byte*>(payload.get()) + table[sealed], tail_bytes,
                                      cudaMemcpyDeviceToHost, s),
                      "download: last block");
            check(cudaStreamSynchronize(s), "download: cudaStreamSynchronize");
            if (tail_bytes != 0) codec::decode_block(std::span<const std::byte>(tail_block.data(), tail_bytes), tail);
        },
        std::span(table.data(), sealed), sizes, tail, size);  // `tail` is read after fill, which decodes it
    core = std::move(out);
}

}  // namespace

void device_blocks::download(vector<std::uint32_t>& out, stream_t stream) const {
    download_into(*this, bitplane::detail::vector_access::core(out), stream);
}

void device_blocks::download(vector<std::int32_t>& out, stream_t stream) const {
    download_into(*this, bitplane::detail::vector_access::core(out), stream);
}

void device_blocks::decode(std::uint32_t* device_out, stream_t stream) const {
    dispatch::enqueue_decode(ref_of(*this), device_out, reinterpret_cast<cudaStream_t>(stream));
}

void decode_to_host(const device_blocks& v, std::uint32_t* host_out, stream_t stream) {
    if (v.size == 0) return;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    auto* out = static_cast<std::uint32_t*>(device_scratch(scratch_slot::decode, 4 * v.blocks * block_values));
    v.decode(out, stream);
    check(cudaMemcpyAsync(host_out, out, 4 * v.size, cudaMemcpyDeviceToHost, s), "decode: download");
    check(cudaStreamSynchronize(s), "decode: cudaStreamSynchronize");
}

namespace {

uint128 read_result(const dispatch::dot_scratch& scratch, cudaStream_t s) {
    auto* host = static_cast<std::uint64_t*>(pinned_scratch(16));
    check(cudaMemcpyAsync(host, scratch.result, 16, cudaMemcpyDeviceToHost, s), "result download");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return (static_cast<uint128>(host[1]) << 64) | host[0];
}

}  // namespace

uint128 sum_blocks(const device_blocks& v, stream_t stream) {
    if (v.blocks == 0) return 0;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const dispatch::launch_params p = dispatch::params_for(v.blocks);
    void* base = device_scratch(scratch_slot::reduce, dispatch::dot_scratch_bytes(v.blocks, p));
    const dispatch::dot_scratch scratch = dispatch::dot_scratch_at(base, v.blocks, p);
    check(cudaMemsetAsync(scratch.result, 0, 16, s), "sum: cudaMemsetAsync");
    dispatch::enqueue_sum(ref_of(v), v.is_signed, scratch, s);
    return read_result(scratch, s);
}

uint128 dot_blocks(const device_blocks& a, const device_blocks& b, stream_t stream) {
    if (a.size != b.size) throw size_error("bitplane::cuda::dot: sizes differ");
    if (a.blocks == 0) return 0;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const dispatch::launch_params p = dispatch::params_for(a.blocks);
    void* base = device_scratch(scratch_slot::reduce, dispatch::dot_scratch_bytes(a.blocks, p));
    const dispatch::dot_scratch scratch = dispatch::dot_scratch_at(base, a.blocks, p);
    check(cudaMemsetAsync(scratch.result, 0, 16, s), "dot: cudaMemsetAsync");
    dispatch::enqueue_dot(ref_of(a), ref_of(b), a.is_signed, 0, a.blocks, scratch, s);
    return read_result(scratch, s);
}

}  // namespace bitplane::cuda::detail
