// Reductions over host-resident compressed vectors, with the transfer to the GPU included, and
// the choice of where they run: bitplane::exec::cpu, gpu, hybrid (a CPU share of the blocks
// while the GPU works on the rest, sized from measured rates) and automatic (picks by size).
// Host header (no CUDA header); link bitplane::cuda.
//
// The transfer pipeline: blocks are cut into batches; batch i's payload bytes and offsets are
// copied (cudaMemcpyAsync) on stream i mod S and its kernels run on that stream right after,
// so the upload of batch i+1 overlaps the work on batch i. From pinned host memory
// (pinned_vector) the copies run at the bus's DMA rate; from a bitplane::vector's arena
// (pageable) CUDA stages them through its own pinned buffers, more slowly and holding the
// calling thread while it copies.
#pragma once

#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bitplane::cuda {

namespace detail {

/// host_blocks in page-locked memory: one allocation holding the payload, then the offsets.
struct pinned_blocks {
    pinned_memory memory;
    const std::byte* payload = nullptr;
    const std::uint64_t* offsets = nullptr;
    std::size_t blocks = 0;
    std::size_t size = 0;
    std::uint64_t bytes = 0;
    bool is_signed = false;
    std::size_t contiguous = 0;
    const std::byte* tail = nullptr;
    void assign(const host_blocks& host);
};

/// dot of two pinned copies on the GPU through the transfer pipeline (cuda/transfer.cpp).
uint128 pinned_dot(const pinned_blocks& a, const pinned_blocks& b, bool is_signed, int streams,
                   std::size_t batch_bytes);

}  // namespace detail

/// A compressed vector's blocks held in pinned (page-locked) host memory for fast transfers:
/// a copy of its encoded bytes (not decoded), as host_blocks describes.
template <column_value T>
class pinned_vector {
public:
    pinned_vector() = default;
    explicit pinned_vector(const vector<T>& host) { blocks_.assign(detail::gather_blocks(host.core())); }
    [[nodiscard]] std::size_t size() const noexcept { return blocks_.size; }
    [[nodiscard]] std::size_t block_count() const noexcept { return blocks_.blocks; }
    [[nodiscard]] std::uint64_t payload_bytes() const noexcept { return blocks_.bytes; }
    [[nodiscard]] const detail::pinned_blocks& blocks() const noexcept { return blocks_; }

private:
    detail::pinned_blocks blocks_;
};

/// Options of the transfer pipeline (0 = the tuning table's value for this device).
struct transfer_options {
    int streams = 0;
    std::size_t batch_bytes = 0;
};

/// dot of two host-resident compressed vectors on the GPU, transfers included: the blocks are
/// streamed to the device in batches over several streams and reduced as they arrive.
/// Synchronous (returns the exact result). Throws size_error when sizes differ.
template <column_value T>
[[nodiscard]] wide_t<T> dot(const pinned_vector<T>& a, const pinned_vector<T>& b, const transfer_options& options = {}) {
    if (a.size() != b.size()) throw size_error("bitplane::cuda::dot: sizes differ");
    return static_cast<wide_t<T>>(
        detail::pinned_dot(a.blocks(), b.blocks(), std::is_signed_v<T>, options.streams, options.batch_bytes));
}

}  // namespace bitplane::cuda

namespace bitplane::exec {

enum class where : std::uint8_t { cpu, gpu, hybrid, automatic };

/// Where a reduction over host-resident data runs. `cpu_share` (hybrid only): the fraction of
/// blocks the CPU takes; negative: sized from the measured rates (rates()).
struct policy {
    where kind = where::automatic;
    double cpu_share = -1.0;
};

inline constexpr policy cpu{where::cpu};
inline constexpr policy gpu{where::gpu};
inline constexpr policy hybrid{where::hybrid};
inline constexpr policy automatic{where::automatic};

/// Measured times of each side alone, at a few sizes (compressed payload bytes of both
/// operands, increasing), from which the planner interpolates: piecewise linear in bytes
/// between the points, the first point's time below it, the last segment's slope beyond.
struct rates {
    std::vector<double> bytes;
    std::vector<double> cpu_seconds;
    std::vector<double> gpu_seconds;
    [[nodiscard]] bool valid() const noexcept {
        return !bytes.empty() && cpu_seconds.size() == bytes.size() && gpu_seconds.size() == bytes.size();
    }
    /// A table from two straight lines (rate in bytes/s, fixed cost in s), for tests.
    static rates linear(double cpu_bytes_per_s, double cpu_latency_s, double gpu_bytes_per_s, double gpu_latency_s);
    [[nodiscard]] double cpu_time(double bytes) const;
    [[nodiscard]] double gpu_time(double bytes) const;
};

/// The rates in use: set by calibrate() or set_rates(), else calibrated on first use.
/// set_rates also forgets what earlier runs taught the planner.
[[nodiscard]] rates current_rates();
void set_rates(const rates& r);
/// Measures both sides alone on 10-bit vectors of 2^12 .. 2^24 values (about a second).
rates calibrate();

/// The CPU share the executor would use now for `bytes` of compressed payload (0: GPU only,
/// 1: CPU only). Besides the table, the planner learns from each run, per size (half-octave
/// of bytes): the time of each side alone, the time of a split and how the split's two sides
/// actually finished (which moves the share towards where both finish together). A split is
/// used only where it is expected to beat the better side alone.
[[nodiscard]] double planned_cpu_share(const policy& p, std::uint64_t bytes);

/// A plain-text description of the rates (for benchmarks and logs).
[[nodiscard]] std::string describe(const rates& r);

}  // namespace bitplane::exec

namespace bitplane::cuda {

namespace detail {
uint128 exec_dot(const exec::policy& p, const bitplane::detail::vector_core& a, const bitplane::detail::vector_core& b,
                 bool is_signed);
}

/// dot of two host-resident vectors where `p` says: CPU (bitplane's block kernels on
/// thread_count() threads), GPU (transfer pipeline from the vectors' arenas), hybrid (both at
/// once on disjoint blocks) or automatic. Exact; synchronous. Throws size_error on unequal sizes.
template <column_value T>
[[nodiscard]] wide_t<T> dot(const exec::policy& p, const vector<T>& a, const vector<T>& b) {
    if (a.size() != b.size()) throw size_error("bitplane::cuda::dot: sizes differ");
    return static_cast<wide_t<T>>(detail::exec_dot(p, a.core(), b.core(), std::is_signed_v<T>));
}

}  // namespace bitplane::cuda
