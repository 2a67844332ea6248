// bitplane::cuda::device_vector<T>: a bitplane::vector's compressed blocks in device memory, and
// the operations that run on them. Host header: it includes no CUDA header (a stream is passed
// as `stream_t`, which is cudaStream_t), so plain C++ code can use it; link bitplane::cuda.
//
// Layout on the device (docs/gpu.md): one contiguous payload buffer with the encoded blocks back
// to back, byte for byte as in the host arena (docs/format.md), plus a table of block offsets
// (u64, blocks + 1 entries). The last, partial block of a vector (its uncompressed tail on the
// host) is encoded as a partial block on upload. An upload or download is therefore a few
// large copies and decodes nothing; kernels parse the blocks on the device.
//
// Streams and synchronization: every entry point takes a stream and enqueues its work on it.
// Functions that return a host value (sum, dot, download) wait for that stream; the others
// return without waiting (upload waits only where CUDA itself must, for pageable host memory).
// No entry point synchronizes the whole device. Scratch memory comes from CUDA's stream-ordered
// allocator (cudaMallocAsync on the given stream, the device's default memory pool).
//
// Errors: a failed CUDA call throws bitplane::cuda_error with CUDA's name and message for it.
// Thread safety: as for std::vector; a device_vector is tied to the device current at upload.
#pragma once

#include <bitplane/error.hpp>
#include <bitplane/int128.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

struct CUstream_st;

namespace bitplane::cuda {

/// A CUDA stream (the same type as cudaStream_t); nullptr is the legacy default stream.
using stream_t = CUstream_st*;

namespace detail {

/// Device memory from cudaMalloc, freed on destruction.
class device_memory {
public:
    device_memory() = default;
    explicit device_memory(std::size_t bytes);
    ~device_memory();
    device_memory(device_memory&& other) noexcept;
    device_memory& operator=(device_memory&& other) noexcept;
    device_memory(const device_memory&) = delete;
    device_memory& operator=(const device_memory&) = delete;
    [[nodiscard]] void* get() const noexcept { return data_; }
    [[nodiscard]] std::size_t size() const noexcept { return bytes_; }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

/// Page-locked host memory from cudaMallocHost, freed on destruction.
class pinned_memory {
public:
    pinned_memory() = default;
    explicit pinned_memory(std::size_t bytes);
    ~pinned_memory();
    pinned_memory(pinned_memory&& other) noexcept;
    pinned_memory& operator=(pinned_memory&& other) noexcept;
    pinned_memory(const pinned_memory&) = delete;
    pinned_memory& operator=(const pinned_memory&) = delete;
    [[nodiscard]] void* get() const noexcept { return data_; }
    [[nodiscard]] std::size_t size() const noexcept { return bytes_; }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

/// A vector's encoded blocks as the host holds them for a transfer: the payload bytes of every
/// block back to back (pointing into the vector's arena when its blocks lie there in order, or
/// into `staging` otherwise), their offsets (blocks + 1), and the tail encoded as a block.
struct host_blocks {
    const std::byte* payload = nullptr;   // blocks [0, sealed) (may be null when sealed == 0)
    std::vector<std::byte> staging;       // a gathered copy when the arena is not in order
    std::vector<std::uint64_t> offsets;   // blocks + 1 entries; the tail block's bytes follow
    std::vector<std::byte> tail;          // encoded tail block (empty when size % 2048 == 0)
    std::size_t sealed = 0;               // blocks in `payload`
    std::size_t size = 0;                 // values
    bool is_signed = false;
    [[nodiscard]] std::size_t blocks() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
    [[nodiscard]] std::uint64_t bytes() const noexcept { return offsets.empty() ? 0 : offsets.back(); }
};

/// host_blocks of a vector (no decoding; the tail block is encoded).
host_blocks gather_blocks(const bitplane::detail::vector_core& core);

/// The type-erased device storage behind device_vector<T>.
struct device_blocks {
    device_memory payload;   // encoded blocks, padded with 16 zero bytes at the end
    device_memory offsets;   // u64, blocks + 1
    std::size_t blocks = 0;
    std::size_t size = 0;
    std::uint64_t bytes = 0;  // payload bytes (without padding)
    bool is_signed = false;

    void upload(const bitplane::detail::vector_core& core, stream_t stream);
    void upload(const host_blocks& host, stream_t stream);
    /// Replaces `out` with these blocks (copied, not decoded); waits for `stream`.
    void download(vector<std::uint32_t>& out, stream_t stream) const;
    void download(vector<std::int32_t>& out, stream_t stream) const;
    void decode(std::uint32_t* device_out, stream_t stream) const;
};

/// Decodes on the device into scratch and copies the values to `host_out`; waits for `stream`.
void decode_to_host(const device_blocks& v, std::uint32_t* host_out, stream_t stream);
uint128 sum_blocks(const device_blocks& v, stream_t stream);
uint128 dot_blocks(const device_blocks& a, const device_blocks& b, stream_t stream);

}  // namespace detail

/// A bitplane::vector<T>'s compressed blocks in device memory.
template <column_value T>
class device_vector {
public:
    device_vector() = default;
    /// Uploads `host` (see upload()).
    explicit device_vector(const vector<T>& host, stream_t stream = nullptr) { upload(host, stream); }
    /// Adopts blocks already on the device (bitplane::cuda::encode, bitplane/cuda/encode.hpp).
    explicit device_vector(detail::device_blocks&& blocks) noexcept : blocks_(std::move(blocks)) {}

    /// Replaces the contents with `host`'s blocks: the payload bytes and the offsets table are
    /// copied as they are (a few cudaMemcpyAsync calls); the host's uncompressed tail is encoded
    /// into one partial block first. The host vector may change once this returns.
    void upload(const vector<T>& host, stream_t stream = nullptr) { blocks_.upload(host.core(), stream); }

    /// The vector back on the host (blocks copied, not decoded); waits for `stream`.
    [[nodiscard]] vector<T> download(stream_t stream = nullptr) const {
        vector<T> out;
        blocks_.download(out, stream);
        return out;
    }

    /// Decodes every value into `device_out` (size() values of device memory) on the device;
    /// does not wait.
    void decode(T* device_out, stream_t stream = nullptr) const {
        blocks_.decode(reinterpret_cast<std::uint32_t*>(device_out), stream);
    }
    /// Decodes on the device and copies the values to the host; waits for `stream`.
    [[nodiscard]] std::vector<T> to_std_vector(stream_t stream = nullptr) const;

    [[nodiscard]] std::size_t size() const noexcept { return blocks_.size; }
    [[nodiscard]] bool empty() const noexcept { return blocks_.size == 0; }
    [[nodiscard]] std::size_t block_count() const noexcept { return blocks_.blocks; }
    /// Encoded bytes on the device (the payload buffer, without the offsets table).
    [[nodiscard]] std::uint64_t payload_bytes() const noexcept { return blocks_.bytes; }
    /// Device pointers to the payload and the offsets table (blocks + 1 u64 entries).
    [[nodiscard]] const std::byte* device_payload() const noexcept {
        return static_cast<const std::byte*>(blocks_.payload.get());
    }
    [[nodiscard]] const std::uint64_t* device_offsets() const noexcept {
        return static_cast<const std::uint64_t*>(blocks_.offsets.get());
    }

    [[nodiscard]] const detail::device_blocks& blocks() const noexcept { return blocks_; }

private:
    detail::device_blocks blocks_;
};

template <column_value T>
std::vector<T> device_vector<T>::to_std_vector(stream_t stream) const {
    std::vector<T> out(size());
    detail::decode_to_host(blocks_, reinterpret_cast<std::uint32_t*>(out.data()), stream);
    return out;
}

/// Exact sum of the values on the device (plane popcounts / decoded values); waits for `stream`.
template <column_value T>
[[nodiscard]] wide_t<T> sum(const device_vector<T>& v, stream_t stream = nullptr) {
    return static_cast<wide_t<T>>(detail::sum_blocks(v.blocks(), stream));
}

/// Exact dot product on the device: plane-pair popcounts over the compressed planes, as 1-bit
/// tensor-core products, where both blocks allow it (dense, plain or frame of reference, full,
/// all-raw, planes below 16), decode-and-multiply for every other block pair. Throws size_error when sizes differ; waits for `stream`.
template <column_value T>
[[nodiscard]] wide_t<T> dot(const device_vector<T>& a, const device_vector<T>& b, stream_t stream = nullptr) {
    if (a.size() != b.size())
        throw size_error("bitplane::cuda::dot: sizes differ (" + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + " values)");
    return static_cast<wide_t<T>>(detail::dot_blocks(a.blocks(), b.blocks(), stream));
}

template <column_value T>
[[nodiscard]] uint128 sum_of_squares(const device_vector<T>& v, stream_t stream = nullptr) {
    return detail::dot_blocks(v.blocks(), v.blocks(), stream);
}

}  // namespace bitplane::cuda
