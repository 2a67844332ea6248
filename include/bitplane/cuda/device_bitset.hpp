// bitplane::cuda::device_bitset: a set of positions in device memory, and its set algebra.
// Host header (no CUDA header); link bitplane::cuda.
//
// Two forms on the device (docs/gpu.md):
//  - encoded: a host bitset uploaded as it is stored, without decoding: its stored blocks'
//    payloads byte for byte (one buffer) and one 16-byte record per block (the host's block
//    entry, or empty / full); downloading it copies the bytes back;
//  - dense: 64 words (2048 bits) per block; what scans and set algebra produce. Downloading
//    one encodes its blocks on the host (bitplane's own encoder chooses each block's form).
// Set algebra and count read either form; results are dense.
//
// Streams: every call enqueues on the given stream; those returning host values (count,
// download) wait for that stream. Errors: bitplane::cuda_error; size_error when sizes differ.
#pragma once

#include <bitplane/bitset.hpp>
#include <bitplane/cuda/device_vector.hpp>

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda {

namespace detail {

struct device_bitset_storage {
    device_memory words;    // dense form: 64 u32 per block (bits at or beyond size clear)
    device_memory records;  // encoded form: 16 bytes per block
    device_memory arena;    // encoded form: payloads, padded with 16 zero bytes
    std::size_t size = 0;   // bits
    std::size_t blocks = 0;
    bool dense = false;
    std::int64_t known_count = -1;  // set bits when known without a kernel (an uploaded bitset)
};

}  // namespace detail

class device_bitset {
public:
    device_bitset() = default;
    /// Uploads `host` (encoded form, see upload()).
    explicit device_bitset(const bitset& host, stream_t stream = nullptr) { upload(host, stream); }

    /// Replaces the contents with `host`'s stored blocks, copied as they are (no decoding).
    void upload(const bitset& host, stream_t stream = nullptr);
    /// The set on the host; waits for `stream`. Encoded: the bytes come back as they went;
    /// dense: each block is encoded on the host.
    [[nodiscard]] bitset download(stream_t stream = nullptr) const;

    [[nodiscard]] std::size_t size() const noexcept { return storage_.size; }
    [[nodiscard]] std::size_t block_count() const noexcept { return storage_.blocks; }
    [[nodiscard]] bool is_dense() const noexcept { return storage_.dense; }
    /// Set bits: known at once for an uploaded set, else counted on the device (waits).
    [[nodiscard]] std::uint64_t count(stream_t stream = nullptr) const;
    /// Dense words (64 per block) of a dense set; nullptr for an encoded one.
    [[nodiscard]] const std::uint32_t* device_words() const noexcept {
        return storage_.dense ? static_cast<const std::uint32_t*>(storage_.words.get()) : nullptr;
    }
    /// A dense set of `size` bits whose words are not yet written (for kernels' results).
    [[nodiscard]] static device_bitset uninitialized_dense(std::size_t size);
    /// This set in dense form (a copy made on the device when encoded).
    [[nodiscard]] device_bitset to_dense(stream_t stream = nullptr) const;

    [[nodiscard]] const detail::device_bitset_storage& storage() const noexcept { return storage_; }
    [[nodiscard]] detail::device_bitset_storage& storage() noexcept { return storage_; }

private:
    detail::device_bitset_storage storage_;
};

/// Set algebra on the device (size_error when sizes differ); results are dense. Enqueued on
/// `stream`; they do not wait.
[[nodiscard]] device_bitset bitset_and(const device_bitset& a, const device_bitset& b, stream_t stream = nullptr);
[[nodiscard]] device_bitset bitset_or(const device_bitset& a, const device_bitset& b, stream_t stream = nullptr);
[[nodiscard]] device_bitset bitset_xor(const device_bitset& a, const device_bitset& b, stream_t stream = nullptr);
/// a AND NOT b.
[[nodiscard]] device_bitset bitset_andnot(const device_bitset& a, const device_bitset& b, stream_t stream = nullptr);

inline device_bitset operator&(const device_bitset& a, const device_bitset& b) { return bitset_and(a, b); }
inline device_bitset operator|(const device_bitset& a, const device_bitset& b) { return bitset_or(a, b); }
inline device_bitset operator^(const device_bitset& a, const device_bitset& b) { return bitset_xor(a, b); }
inline device_bitset andnot(const device_bitset& a, const device_bitset& b) { return bitset_andnot(a, b); }

}  // namespace bitplane::cuda
