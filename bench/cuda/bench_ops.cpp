// The operations section of bitplane_cuda_bench (see bench_ops.hpp).
//
// How each operation is measured (docs/benchmarks.md, "GPU"):
//  - device-resident: the compressed vectors (device_vector) and the dense values (plain device
//    arrays) are on the device before timing; a call is timed until its result is where the API
//    leaves it (device memory for decode, bitwise, scans and set algebra, the host for sums,
//    matrices, jaccard and counts), the stream waited for. bitplane's calls and the dense GPU
//    baseline are timed in interleaved rounds (bench_common.hpp), medians.
//  - with transfer: the data starts in pinned host memory (the compressed payload for bitplane,
//    the dense values for the baselines) and the call ends when the result is on the host. For
//    bitplane that is the compressed upload (a device_blocks upload from a pinned copy of the
//    vector's payload: a few cudaMemcpyAsync, the allocation of the device buffers included),
//    the operation and the result's copy back; for the dense baseline the dense values' copy,
//    the thrust call and the result's copy; the bus row is the dense copies alone.
//  - bitplane's CPU path: the library call on host vectors (oneTBB threads where the build has
//    it), timed after the call that produced the reference result.
// Every GPU result (bitplane's and each baseline's) is compared with the CPU's before timing.
#include "bench_ops.hpp"

#include "bench_common.hpp"
#include "baselines.hpp"
#include "ops_baselines.hpp"

#include <bitplane/bitplane.hpp>
#include <bitplane/cuda/bitwise.hpp>
#include <bitplane/cuda/device_bitset.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/encode.hpp>
#include <bitplane/cuda/scan.hpp>
#include <bitplane/cuda/similarity.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace bitplane_bench {
namespace {

namespace bc = bitplane::cuda;
using u32 = std::uint32_t;

constexpr cudaStream_t stream0 = nullptr;  // every call below runs on the legacy default stream

void sync() { check(cudaStreamSynchronize(stream0), "cudaStreamSynchronize"); }

void h2d(void* dst, const void* src, std::size_t bytes) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream0), "cudaMemcpyAsync H2D");
}
void d2h(void* dst, const void* src, std::size_t bytes) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream0), "cudaMemcpyAsync D2H");
}
void d2d(void* dst, const void* src, std::size_t bytes) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream0), "cudaMemcpyAsync D2D");
}

/// Budgets per group of interleaved GPU variants and per CPU measurement: enough rounds for a
/// stable median at small sizes, few at 2^26 and up, where one round of a with-transfer group
/// moves gigabytes (the whole run up to 2^28 stays within about five minutes on the H100).
double gpu_budget(std::size_t n) { return n >= (std::size_t{1} << 26) ? 0.3 : n >= (std::size_t{1} << 22) ? 0.15 : 0.08; }
double cpu_budget(std::size_t n) { return n >= (std::size_t{1} << 26) ? 0.4 : n >= (std::size_t{1} << 22) ? 0.2 : 0.08; }

std::string str(bitplane::uint128 x) { return bitplane::to_string(x); }

/// One line of the summary: ratios of the baselines' times over bitplane's (> 1: bitplane faster).
struct ratio_row {
    std::string shape;
    std::size_t n = 0;
    std::string op;
    double dense_device = 0;    // dense GPU baseline / bitplane, device-resident (0: none)
    double dense_transfer = 0;  // dense baseline with its transfers / bitplane with transfers
    double bus = 0;             // dense copies alone / bitplane with transfers
    double cpu = 0;             // bitplane's CPU path / bitplane on the GPU, device-resident
};

/// Everything one size and shape needs, built once: the values on the host (plain and pinned),
/// on the device (plain), compressed on the host, in pinned memory and on the device.
struct workload {
    std::string shape;
    std::size_t n = 0;
    u32 mask = 0;
    std::vector<u32> va, vb;
    bitplane::vector<u32> a, b;
    device_array dva, dvb, dout, dout2;  // dense values; two outputs of n values
    pinned_array ha, hb, hout;          // dense values and one output of n values, pinned
    bc::device_vector<u32> da, db;
    bc::detail::host_blocks ga, gb;  // the vectors' blocks, payload in pinned memory (below)
    pinned_array pa_payload, pb_payload;
    double dense = 0;  // dense bytes of one operand (4 n)

    // The with-transfer rows' copies of both operands: compressed blocks from pinned memory
    // into x and y, or the dense values from pinned memory (enqueued on stream0).
    void upload_both(bc::detail::device_blocks& x, bc::detail::device_blocks& y) const {
        x.upload(ga, stream0);
        y.upload(gb, stream0);
    }
    void copy_dense_both() const {
        h2d(dva.p, ha.p, 4 * n);
        h2d(dvb.p, hb.p, 4 * n);
    }

    workload(std::string shape_name, std::size_t size, unsigned bits, std::uint64_t seed)
        : shape(std::move(shape_name)),
          n(size),
          mask(bits >= 32 ? ~0u : (1u << bits) - 1u),
          va(size),
          vb(size),
          dva(4 * size),
          dvb(4 * size),
          dout(4 * size),
          dout2(4 * size),
          ha(4 * size),
          hb(4 * size),
          hout(4 * size),
          pa_payload(1),
          pb_payload(1),
          dense(4.0 * static_cast<double>(size)) {
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t r = xorshift(seed);
            va[i] = static_cast<u32>(r) & mask;
            vb[i] = static_cast<u32>(r >> 32) & mask;
        }
        a = bitplane::vector<u32>{std::span<const u32>(va)};
        b = bitplane::vector<u32>{std::span<const u32>(vb)};
        std::memcpy(ha.p, va.data(), 4 * n);
        std::memcpy(hb.p, vb.data(), 4 * n);
        h2d(dva.p, va.data(), 4 * n);
        h2d(dvb.p, vb.data(), 4 * n);
        da.upload(a);
        db.upload(b);
        ga = pinned_blocks(a, pa_payload);
        gb = pinned_blocks(b, pb_payload);
        sync();
    }

    /// The vector's host_blocks with the sealed blocks' payload copied into pinned memory, so
    /// that a device_blocks upload from it runs at the bus's DMA rate (the offsets table and
    /// the encoded tail, < 0.4% of the bytes, stay pageable).
    static bc::detail::host_blocks pinned_blocks(const bitplane::vector<u32>& v, pinned_array& memory) {
        bc::detail::host_blocks h = bc::detail::gather_blocks(v.core());
        const std::uint64_t sealed_bytes = h.offsets.empty() ? 0 : h.offsets[h.sealed];
        pinned_array copy(sealed_bytes);
        if (sealed_bytes != 0) std::memcpy(copy.p, h.payload, sealed_bytes);
        std::swap(memory.p, copy.p);
        h.payload = memory.as<const std::byte>();
        h.staging.clear();
        h.staging.shrink_to_fit();
        return h;
    }

    [[nodiscard]] std::uint64_t compressed_bytes() const { return da.payload_bytes(); }
    [[nodiscard]] std::uint64_t sealed_bytes(const bc::detail::host_blocks& h) const {
        return h.offsets.empty() ? 0 : h.offsets[h.sealed];
    }
};

/// Runs the given variants in interleaved rounds and records each row.
struct variant {
    const char* name;
    std::function<void()> run;
    std::string note = {};
};

/// The CSV's operation column: the operation, and the shape when it is not the bench's
/// default (uniform 10-bit, as every row of the dot section), so that rows of both shapes at
/// one size stay apart.
std::string op_label(const workload& w, const char* op) {
    return w.shape == "uniform10" ? std::string(op) : std::string(op) + " (" + w.shape + ")";
}

std::vector<double> time_and_record(std::FILE* csv, const workload& w, const char* op, const std::vector<variant>& variants,
                                    double bytes) {
    std::vector<std::function<void()>> runs;
    for (const variant& v : variants) runs.push_back(v.run);
    const std::vector<double> t = interleaved_medians(runs, gpu_budget(w.n), 1000);
    const std::string label = op_label(w, op);
    for (std::size_t i = 0; i < variants.size(); ++i)
        record(csv, w.n, label.c_str(), variants[i].name, t[i], bytes, variants[i].note);
    return t;
}

double time_cpu(std::FILE* csv, const workload& w, const char* op, const char* variant_name, const std::function<void()>& run,
                double bytes, const std::string& note = "") {
    const double t = median_seconds_warm(run, cpu_budget(w.n));
    record(csv, w.n, op_label(w, op).c_str(), variant_name, t, bytes, note);
    return t;
}

void expect_words(const u32* device_words, const u32* reference_device_words, std::size_t n_bits, const std::string& what) {
    const std::size_t words = (n_bits + 31) / 32;
    std::vector<u32> x(words), y(words);
    d2h(x.data(), device_words, 4 * words);
    d2h(y.data(), reference_device_words, 4 * words);
    sync();
    if (x != y) fail(what);
}

void expect_device_values(const u32* device_values, const std::vector<u32>& expected, const std::string& what) {
    std::vector<u32> x(expected.size());
    d2h(x.data(), device_values, 4 * x.size());
    sync();
    if (x != expected) fail(what);
}

// ---- device_vector transfers and decode -------------------------------------------------------

void bench_transfers(std::FILE* csv, workload& w, std::vector<ratio_row>& ratios) {
    const std::uint64_t payload = w.compressed_bytes();
    const std::string bpv = std::to_string(static_cast<double>(payload) / static_cast<double>(w.n)) + " B/value compressed";
    {
        bc::detail::device_blocks t;
        t.upload(w.ga, stream0);
        bitplane::vector<u32> back;
        t.download(back, stream0);
        if (back != w.a) fail(w.shape + ": upload from pinned memory + download differs from the vector");
        if (w.da.download() != w.a) fail(w.shape + ": device_vector download differs from the vector");
    }
    device_array scratch(payload + 16);
    const std::vector<double> up = time_and_record(
        csv, w, "device_vector upload",
        {{"bitplane compressed from pinned", [&] { bc::detail::device_blocks t; t.upload(w.ga, stream0); sync(); }, bpv},
         {"bitplane device_vector(vector) pageable", [&] { bc::device_vector<u32> t(w.a); sync(); }},
         {"cudaMemcpy compressed pinned", [&] { h2d(scratch.p, w.ga.payload, w.sealed_bytes(w.ga)); sync(); }},
         {"cudaMemcpy dense pinned (bus)", [&] { h2d(w.dva.p, w.ha.p, 4 * w.n); sync(); }}},
        w.dense);
    pinned_array host_payload(payload);
    const std::vector<double> down = time_and_record(
        csv, w, "device_vector download",
        {{"bitplane download() to vector", [&] { (void)w.da.download(); }},
         {"cudaMemcpy compressed to pinned", [&] { d2h(host_payload.p, w.da.device_payload(), payload); sync(); }},
         {"cudaMemcpy dense to pinned (bus)", [&] { d2h(w.hout.p, w.dva.p, 4 * w.n); sync(); }}},
        w.dense);
    ratios.push_back({w.shape, w.n, "upload (pinned)", 0, 0, up[3] / up[0], 0});
    ratios.push_back({w.shape, w.n, "download", 0, 0, down[2] / down[0], 0});
}

void bench_decode(std::FILE* csv, workload& w, std::vector<ratio_row>& ratios) {
    u32* out = w.dout.as<u32>();
    w.da.decode(out, stream0);
    sync();
    expect_device_values(out, w.va, w.shape + ": device decode");
    {
        bc::detail::device_blocks t;
        t.upload(w.ga, stream0);
        t.decode(out, stream0);
        d2h(w.hout.p, out, 4 * w.n);
        sync();
        if (std::memcmp(w.hout.p, w.va.data(), 4 * w.n) != 0) fail(w.shape + ": decode with transfers");
    }
    const std::vector<double> dev = time_and_record(
        csv, w, "decode device-resident",
        {{"bitplane decode()", [&] { w.da.decode(out, stream0); sync(); }},
         {"cudaMemcpy dense D2D (a copy)", [&] { d2d(w.dout2.p, w.dva.p, 4 * w.n); sync(); }}},
        w.dense);
    const std::vector<double> tr = time_and_record(
        csv, w, "decode with transfer",
        {{"bitplane pinned up + decode + values back",
          [&] {
              bc::detail::device_blocks t;
              t.upload(w.ga, stream0);
              t.decode(out, stream0);
              d2h(w.hout.p, out, 4 * w.n);
              sync();
          }},
         {"cudaMemcpy dense up + back (bus)",
          [&] {
              h2d(w.dva.p, w.ha.p, 4 * w.n);
              d2h(w.hout.p, w.dva.p, 4 * w.n);
              sync();
          }}},
        w.dense);
    std::vector<u32> host(w.n);
    w.a.decode(0, std::span<u32>(host));
    if (host != w.va) fail(w.shape + ": CPU decode");
    const double cpu = time_cpu(csv, w, "decode device-resident", "bitplane CPU vector::decode",
                                [&] { w.a.decode(0, std::span<u32>(host)); }, w.dense);
    ratios.push_back({w.shape, w.n, "decode", dev[1] / dev[0], 0, tr[1] / tr[0], cpu / dev[0]});
}

// ---- sums -------------------------------------------------------------------------------------

void bench_sums(std::FILE* csv, workload& w, std::vector<ratio_row>& ratios) {
    const u32* dv = w.dva.as<u32>();
    // sum
    {
        const bitplane::uint128 expected = bitplane::sum(w.a);
        if (bc::sum(w.da) != expected) fail(w.shape + ": device sum " + str(bc::sum(w.da)) + " != " + str(expected));
        if (thrust_sum(dv, w.n, stream0) != expected) fail(w.shape + ": thrust sum");
        bc::detail::device_blocks t;
        t.upload(w.ga, stream0);
        if (bc::detail::sum_blocks(t, stream0) != expected) fail(w.shape + ": sum with transfers");
        const std::vector<double> dev = time_and_record(
            csv, w, "sum device-resident",
            {{"bitplane sum", [&] { (void)bc::sum(w.da); }},
             {"thrust::transform_reduce dense", [&] { (void)thrust_sum(dv, w.n, stream0); }}},
            w.dense);
        const std::vector<double> tr = time_and_record(
            csv, w, "sum with transfer",
            {{"bitplane pinned up + sum",
              [&] {
                  bc::detail::device_blocks u;
                  u.upload(w.ga, stream0);
                  (void)bc::detail::sum_blocks(u, stream0);
              }},
             {"thrust dense pinned up + reduce",
              [&] {
                  h2d(w.dva.p, w.ha.p, 4 * w.n);
                  (void)thrust_sum(dv, w.n, stream0);
              }},
             {"cudaMemcpy dense pinned (bus)", [&] { h2d(w.dva.p, w.ha.p, 4 * w.n); sync(); }}},
            w.dense);
        const double cpu = time_cpu(csv, w, "sum device-resident", "bitplane CPU sum", [&] { (void)bitplane::sum(w.a); }, w.dense);
        ratios.push_back({w.shape, w.n, "sum", dev[1] / dev[0], tr[1] / tr[0], tr[2] / tr[0], cpu / dev[0]});
    }
    // sum of squares
    {
        const bitplane::uint128 expected = bitplane::sum_of_squares(w.a);
        const auto thrust128 = [&] {
            const u128_parts p = thrust_sum_of_squares(dv, w.n, stream0);
            return (static_cast<bitplane::uint128>(p.hi) << 64) | p.lo;
        };
        if (bc::sum_of_squares(w.da) != expected) fail(w.shape + ": device sum_of_squares");
        if (thrust128() != expected) fail(w.shape + ": thrust sum of squares " + str(thrust128()) + " != " + str(expected));
        const std::vector<double> dev = time_and_record(
            csv, w, "sum_of_squares device-resident",
            {{"bitplane sum_of_squares", [&] { (void)bc::sum_of_squares(w.da); }},
             {"thrust::transform_reduce dense (128-bit)", [&] { (void)thrust128(); }}},
            w.dense);
        const std::vector<double> tr = time_and_record(
            csv, w, "sum_of_squares with transfer",
            {{"bitplane pinned up + sum_of_squares",
              [&] {
                  bc::detail::device_blocks u;
                  u.upload(w.ga, stream0);
                  (void)bc::detail::dot_blocks(u, u, stream0);  // what sum_of_squares calls
              }},
             {"thrust dense pinned up + reduce",
              [&] {
                  h2d(w.dva.p, w.ha.p, 4 * w.n);
                  (void)thrust128();
              }},
             {"cudaMemcpy dense pinned (bus)", [&] { h2d(w.dva.p, w.ha.p, 4 * w.n); sync(); }}},
            w.dense);
        const double cpu = time_cpu(csv, w, "sum_of_squares device-resident", "bitplane CPU sum_of_squares",
                                    [&] { (void)bitplane::sum_of_squares(w.a); }, w.dense);
        ratios.push_back({w.shape, w.n, "sum_of_squares", dev[1] / dev[0], tr[1] / tr[0], tr[2] / tr[0], cpu / dev[0]});
    }
}

// ---- scans ------------------------------------------------------------------------------------

/// find_eq (lo == hi) or find_range, answered as a dense device_bitset; the baseline writes a
/// dense bitmap of the same layout with one ballot per word.
void bench_scan(std::FILE* csv, workload& w, const char* label, u32 lo, u32 hi, std::vector<ratio_row>& ratios) {
    const std::string op = label;
    const auto find_device = [&] { return lo == hi ? bc::find_eq(w.da, lo) : bc::find_range(w.da, lo, hi); };
    const bitplane::bitset expected = lo == hi ? bitplane::find_eq(w.a, lo) : bitplane::find_range(w.a, lo, hi);
    const std::size_t words = (w.n + 31) / 32;
    u32* bitmap = w.dout2.as<u32>();
    pinned_array host_words(4 * words);
    {
        const bc::device_bitset r = find_device();
        if (r.download() != expected) fail(w.shape + ": device " + op + " differs from the CPU's");
        if (r.count() != expected.count()) fail(w.shape + ": device " + op + " count");
        dense_range_bitmap(w.dva.as<u32>(), w.n, lo, hi, bitmap, stream0);
        expect_words(bitmap, r.device_words(), w.n, w.shape + ": dense bitmap baseline of " + op);
        bc::detail::device_blocks t;
        t.upload(w.ga, stream0);
        if (bc::detail::scan_blocks(t, 0, lo, hi, false, stream0).download() != expected)
            fail(w.shape + ": " + op + " with transfers");
    }
    const std::string density = std::to_string(100.0 * static_cast<double>(expected.count()) / static_cast<double>(w.n)) + "% set";
    const std::vector<double> dev = time_and_record(
        csv, w, (op + " device-resident").c_str(),
        {{"bitplane (dense device_bitset)",
          [&] {
              const bc::device_bitset r = find_device();
              sync();
          },
          density},
         {"dense ballot bitmap kernel", [&] { dense_range_bitmap(w.dva.as<u32>(), w.n, lo, hi, bitmap, stream0); }}},
        w.dense);
    const std::vector<double> tr = time_and_record(
        csv, w, (op + " with transfer").c_str(),
        {{"bitplane pinned up + scan + download()",
          [&] {
              bc::detail::device_blocks t;
              t.upload(w.ga, stream0);
              (void)bc::detail::scan_blocks(t, 0, lo, hi, false, stream0).download();
          },
          "result as a compressed bitset"},
         {"bitplane pinned up + scan + words back",
          [&] {
              bc::detail::device_blocks t;
              t.upload(w.ga, stream0);
              const bc::device_bitset r = bc::detail::scan_blocks(t, 0, lo, hi, false, stream0);
              d2h(host_words.p, r.device_words(), 4 * words);
              sync();
          },
          "result as dense words"},
         {"dense up + bitmap kernel + words back",
          [&] {
              h2d(w.dva.p, w.ha.p, 4 * w.n);
              dense_range_bitmap(w.dva.as<u32>(), w.n, lo, hi, bitmap, stream0);
              d2h(host_words.p, bitmap, 4 * words);
              sync();
          }},
         {"cudaMemcpy dense up + words back (bus)",
          [&] {
              h2d(w.dva.p, w.ha.p, 4 * w.n);
              d2h(host_words.p, bitmap, 4 * words);
              sync();
          }}},
        w.dense);
    const double cpu = time_cpu(
        csv, w, (op + " device-resident").c_str(), "bitplane CPU (compressed bitset)",
        [&] { (void)(lo == hi ? bitplane::find_eq(w.a, lo) : bitplane::find_range(w.a, lo, hi)); }, w.dense);
    ratios.push_back({w.shape, w.n, op, dev[1] / dev[0], tr[2] / tr[0], tr[3] / tr[0], cpu / dev[0]});
    ratios.push_back({w.shape, w.n, op + " (words back)", 0, tr[2] / tr[1], tr[3] / tr[1], 0});
}

void bench_count(std::FILE* csv, workload& w, u32 lo, u32 hi, std::vector<ratio_row>& ratios) {
    const std::uint64_t expected = bitplane::count_range(w.a, lo, hi);
    const u32* dv = w.dva.as<u32>();
    if (bc::find_range(w.da, lo, hi).count() != expected) fail(w.shape + ": device find_range + count");
    if (thrust_count_range(dv, w.n, lo, hi, stream0) != expected) fail(w.shape + ": thrust::count_if");
    const std::vector<double> dev = time_and_record(
        csv, w, "count_range device-resident",
        {{"bitplane find_range + count()", [&] { (void)bc::find_range(w.da, lo, hi).count(); }},
         {"thrust::count_if dense", [&] { (void)thrust_count_range(dv, w.n, lo, hi, stream0); }}},
        w.dense);
    const std::vector<double> tr = time_and_record(
        csv, w, "count_range with transfer",
        {{"bitplane pinned up + find_range + count()",
          [&] {
              bc::detail::device_blocks t;
              t.upload(w.ga, stream0);
              (void)bc::detail::scan_blocks(t, 0, lo, hi, false, stream0).count();
          }},
         {"thrust dense pinned up + count_if",
          [&] {
              h2d(w.dva.p, w.ha.p, 4 * w.n);
              (void)thrust_count_range(dv, w.n, lo, hi, stream0);
          }},
         {"cudaMemcpy dense pinned (bus)", [&] { h2d(w.dva.p, w.ha.p, 4 * w.n); sync(); }}},
        w.dense);
    const double cpu = time_cpu(csv, w, "count_range device-resident", "bitplane CPU count_range",
                                [&] { (void)bitplane::count_range(w.a, lo, hi); }, w.dense);
    ratios.push_back({w.shape, w.n, "count_range", dev[1] / dev[0], tr[1] / tr[0], tr[2] / tr[0], cpu / dev[0]});
}

// ---- bitwise ----------------------------------------------------------------------------------

/// All three device-resident; with transfers for AND only (OR and XOR move the same bytes).
void bench_bitwise(std::FILE* csv, workload& w, std::vector<ratio_row>& ratios) {
    using vec = bitplane::vector<u32>;
    struct op_case {
        const char* name;
        bit_op op;
        void (*gpu)(const bc::device_vector<u32>&, const bc::device_vector<u32>&, u32*, bc::stream_t);
        bitplane::vector<u32> (*cpu)(const bitplane::vector<u32>&, const bitplane::vector<u32>&);
        u32 (*scalar)(u32, u32);
    };
    const op_case cases[] = {
        {"bitwise_and", bit_op::and_op, &bc::bitwise_and<u32>, [](const vec& x, const vec& y) { return x & y; },
         [](u32 x, u32 y) { return x & y; }},
        {"bitwise_or", bit_op::or_op, &bc::bitwise_or<u32>, [](const vec& x, const vec& y) { return x | y; },
         [](u32 x, u32 y) { return x | y; }},
        {"bitwise_xor", bit_op::xor_op, &bc::bitwise_xor<u32>, [](const vec& x, const vec& y) { return x ^ y; },
         [](u32 x, u32 y) { return x ^ y; }},
    };
    u32* out = w.dout.as<u32>();
    u32* out2 = w.dout2.as<u32>();
    std::vector<u32> expected(w.n);
    for (const op_case& c : cases) {
        const std::string op = c.name;
        for (std::size_t i = 0; i < w.n; ++i) expected[i] = c.scalar(w.va[i], w.vb[i]);
        if (c.cpu(w.a, w.b).to_std_vector() != expected) fail(w.shape + ": CPU " + op);
        c.gpu(w.da, w.db, out, stream0);
        sync();
        expect_device_values(out, expected, w.shape + ": device " + op);
        thrust_bitwise(w.dva.as<u32>(), w.dvb.as<u32>(), out2, w.n, c.op, stream0);
        expect_device_values(out2, expected, w.shape + ": thrust " + op);
        const std::vector<double> dev = time_and_record(
            csv, w, (op + " device-resident").c_str(),
            {{"bitplane (dense values out)",
              [&] {
                  c.gpu(w.da, w.db, out, stream0);
                  sync();
              }},
             {"thrust::transform dense",
              [&] { thrust_bitwise(w.dva.as<u32>(), w.dvb.as<u32>(), out2, w.n, c.op, stream0); }}},
            2 * w.dense);
        double dense_transfer = 0, bus = 0;
        if (c.op == bit_op::and_op) {
            {
                bc::detail::device_blocks x, y;
                w.upload_both(x, y);
                bc::detail::bitwise_blocks(x, y, static_cast<bc::detail::bitwise_op>(static_cast<unsigned>(c.op)), out,
                                           stream0);
                d2h(w.hout.p, out, 4 * w.n);
                sync();
                if (std::memcmp(w.hout.p, expected.data(), 4 * w.n) != 0) fail(w.shape + ": " + op + " with transfers");
            }
            const std::vector<double> tr = time_and_record(
                csv, w, (op + " with transfer").c_str(),
                {{"bitplane pinned up x2 + op + values back",
                  [&] {
                      bc::detail::device_blocks x, y;
                      w.upload_both(x, y);
                      bc::detail::bitwise_blocks(x, y, static_cast<bc::detail::bitwise_op>(static_cast<unsigned>(c.op)),
                                                 out, stream0);
                      d2h(w.hout.p, out, 4 * w.n);
                      sync();
                  }},
                 {"thrust dense up x2 + transform + back",
                  [&] {
                      w.copy_dense_both();
                      thrust_bitwise(w.dva.as<u32>(), w.dvb.as<u32>(), out2, w.n, c.op, stream0);
                      d2h(w.hout.p, out2, 4 * w.n);
                      sync();
                  }},
                 {"cudaMemcpy dense up x2 + back (bus)",
                  [&] {
                      w.copy_dense_both();
                      d2h(w.hout.p, out2, 4 * w.n);
                      sync();
                  }}},
                2 * w.dense);
            dense_transfer = tr[1] / tr[0];
            bus = tr[2] / tr[0];
        }
        const double cpu = time_cpu(csv, w, (op + " device-resident").c_str(), "bitplane CPU operator (compressed out)",
                                    [&] { (void)c.cpu(w.a, w.b); }, 2 * w.dense);
        ratios.push_back({w.shape, w.n, op, dev[1] / dev[0], dense_transfer, bus, cpu / dev[0]});
    }
}

// ---- similarity -------------------------------------------------------------------------------

void bench_similarity(std::FILE* csv, workload& w, std::vector<ratio_row>& ratios) {
    const std::size_t blocks = w.n / bitplane::block_values;  // full blocks (the seed kernel's unit)
    const bool dense_baseline = blocks * bitplane::block_values == w.n && blocks != 0;
    // plane Hamming matrix
    {
        const bitplane::plane_matrix expected = bitplane::plane_hamming_matrix(w.a);
        if (bc::plane_hamming_matrix(w.da) != expected) fail(w.shape + ": device plane_hamming_matrix");
        device_array planes(4 * w.n), per_block(2048 * std::max<std::size_t>(blocks, 1)), total(8 * 1024);
        pinned_array host_total(8 * 1024);
        const auto summed = [&] {
            sum_block_matrices(per_block.as<std::uint16_t>(), blocks, total.as<unsigned long long>(), stream0);
            d2h(host_total.p, total.p, 8 * 1024);
            sync();
        };
        const auto seed = [&] {
            seed_transpose_hamming(w.dva.as<u32>(), blocks, planes.as<u32>(), per_block.as<std::uint16_t>(), stream0);
            summed();
        };
        const auto ballots = [&] {
            bc::transpose_hamming(w.dva.as<u32>(), blocks, nullptr, per_block.as<std::uint16_t>(), stream0);
            summed();
        };
        const auto matches = [&] {
            const auto* m = host_total.as<const unsigned long long>();
            for (std::size_t i = 0; i < 32; ++i)
                for (std::size_t j = 0; j < 32; ++j)
                    if (m[32 * i + j] != expected[i][j]) return false;
            return true;
        };
        std::vector<variant> dev_variants{{"bitplane plane_hamming_matrix", [&] { (void)bc::plane_hamming_matrix(w.da); }}};
        std::vector<variant> tr_variants{{"bitplane pinned up + matrix", [&] {
                                              bc::detail::device_blocks t;
                                              t.upload(w.ga, stream0);
                                              (void)bc::detail::hamming_blocks(t, nullptr, 0, t.blocks, stream0);
                                          }}};
        if (dense_baseline) {
            seed();
            if (!matches()) fail(w.shape + ": seed kernel + sum of block matrices");
            ballots();
            if (!matches()) fail(w.shape + ": transpose_hamming + sum of block matrices");
            dev_variants.push_back({"seed kernel dense + sum", seed});
            dev_variants.push_back({"bitplane transpose_hamming dense + sum", ballots});
            tr_variants.push_back({"seed kernel dense up + kernel + sum", [&] {
                                       h2d(w.dva.p, w.ha.p, 4 * w.n);
                                       seed();
                                   }});
            tr_variants.push_back({"cudaMemcpy dense pinned (bus)", [&] {
                                       h2d(w.dva.p, w.ha.p, 4 * w.n);
                                       sync();
                                   }});
        }
        const std::vector<double> dev = time_and_record(csv, w, "plane_hamming_matrix device-resident", dev_variants, w.dense);
        const std::vector<double> tr = time_and_record(csv, w, "plane_hamming_matrix with transfer", tr_variants, w.dense);
        const double cpu = time_cpu(csv, w, "plane_hamming_matrix device-resident", "bitplane CPU plane_hamming_matrix",
                                    [&] { (void)bitplane::plane_hamming_matrix(w.a); }, w.dense);
        ratios.push_back({w.shape, w.n, "plane_hamming_matrix (vs seed)", dense_baseline ? dev[1] / dev[0] : 0,
                          dense_baseline ? tr[1] / tr[0] : 0, dense_baseline ? tr[2] / tr[0] : 0, cpu / dev[0]});
    }
    // cross Hamming matrix: no dense GPU library equivalent (thrust and cuBLAS have no bit-plane
    // transpose), so the CPU path and the bus are its baselines.
    {
        const bitplane::plane_matrix expected = bitplane::cross_hamming_matrix(w.a, w.b);
        if (bc::cross_hamming_matrix(w.da, w.db) != expected) fail(w.shape + ": device cross_hamming_matrix");
        const std::vector<double> dev = time_and_record(
            csv, w, "cross_hamming_matrix device-resident",
            {{"bitplane cross_hamming_matrix", [&] { (void)bc::cross_hamming_matrix(w.da, w.db); },
              "no dense GPU equivalent in thrust/cuBLAS"}},
            2 * w.dense);
        const std::vector<double> tr = time_and_record(
            csv, w, "cross_hamming_matrix with transfer",
            {{"bitplane pinned up x2 + matrix",
              [&] {
                  bc::detail::device_blocks x, y;
                  w.upload_both(x, y);
                  (void)bc::detail::hamming_blocks(x, &y, 0, x.blocks, stream0);
              }},
             {"cudaMemcpy dense pinned x2 (bus)",
              [&] {
                  w.copy_dense_both();
                  sync();
              }}},
            2 * w.dense);
        const double cpu = time_cpu(csv, w, "cross_hamming_matrix device-resident", "bitplane CPU cross_hamming_matrix",
                                    [&] { (void)bitplane::cross_hamming_matrix(w.a, w.b); }, 2 * w.dense);
        ratios.push_back({w.shape, w.n, "cross_hamming_matrix", 0, 0, tr[1] / tr[0], cpu / dev[0]});
    }
    // jaccard
    {
        const double expected = bitplane::jaccard(w.a, w.b);
        const auto thrust_jaccard = [&] {
            std::uint64_t both = 0, either = 0;
            thrust_and_or_counts(w.dva.as<u32>(), w.dvb.as<u32>(), w.n, &both, &either, stream0);
            return either == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(either);
        };
        // Both sides divide the same two exact counts, so the doubles must be equal.
        if (bc::jaccard(w.da, w.db) != expected) fail(w.shape + ": device jaccard");
        if (thrust_jaccard() != expected) fail(w.shape + ": thrust jaccard");
        const std::vector<double> dev = time_and_record(
            csv, w, "jaccard device-resident",
            {{"bitplane jaccard", [&] { (void)bc::jaccard(w.da, w.db); }},
             {"thrust::inner_product popcounts dense", [&] { (void)thrust_jaccard(); }}},
            2 * w.dense);
        const std::vector<double> tr = time_and_record(
            csv, w, "jaccard with transfer",
            {{"bitplane pinned up x2 + jaccard",
              [&] {
                  bc::detail::device_blocks x, y;
                  w.upload_both(x, y);
                  (void)bc::detail::jaccard_blocks(x, y, stream0);
              }},
             {"thrust dense up x2 + popcounts",
              [&] {
                  w.copy_dense_both();
                  (void)thrust_jaccard();
              }},
             {"cudaMemcpy dense pinned x2 (bus)",
              [&] {
                  w.copy_dense_both();
                  sync();
              }}},
            2 * w.dense);
        const double cpu =
            time_cpu(csv, w, "jaccard device-resident", "bitplane CPU jaccard", [&] { (void)bitplane::jaccard(w.a, w.b); }, 2 * w.dense);
        ratios.push_back({w.shape, w.n, "jaccard", dev[1] / dev[0], tr[1] / tr[0], tr[2] / tr[0], cpu / dev[0]});
    }
}

// ---- device bitsets -----------------------------------------------------------------------------

void bench_bitsets(std::FILE* csv, workload& w, std::vector<ratio_row>& ratios) {
    // A: about half the positions (raw blocks); B: about 1/32 (position lists): the two
    // encodings a scan's result takes most often.
    const u32 half = static_cast<u32>((std::uint64_t{w.mask} + 1) / 2);
    const u32 thirty_second = static_cast<u32>((std::uint64_t{w.mask} + 1) / 32);
    const bitplane::bitset cpu_a = bitplane::find_lt(w.a, half);
    const bitplane::bitset cpu_b = bitplane::find_lt(w.b, thirty_second);
    const std::size_t words = (w.n + 31) / 32;
    const double bitmap = 4.0 * static_cast<double>(words);  // dense bytes of one operand
    const bc::device_bitset enc_a(cpu_a), enc_b(cpu_b);
    const bc::device_bitset dense_a = enc_a.to_dense(), dense_b = enc_b.to_dense();
    sync();
    if (enc_a.download() != cpu_a || enc_b.download() != cpu_b) fail(w.shape + ": device_bitset encoded round trip");
    if (dense_a.download() != cpu_a || dense_b.download() != cpu_b) fail(w.shape + ": device_bitset to_dense + download");
    const u32* wa = dense_a.device_words();
    const u32* wb = dense_b.device_words();
    device_array wout(4 * words), wcopy(4 * words);
    pinned_array hwa(4 * words), hwb(4 * words), hwout(4 * words);
    d2h(hwa.p, wa, 4 * words);
    d2h(hwb.p, wb, 4 * words);
    sync();
    const std::string notes[2] = {
        std::to_string(cpu_a.memory_bytes()) + " B on the host; " + std::to_string(100.0 * static_cast<double>(cpu_a.count()) / static_cast<double>(w.n)) + "% set",
        std::to_string(cpu_b.memory_bytes()) + " B on the host; " + std::to_string(100.0 * static_cast<double>(cpu_b.count()) / static_cast<double>(w.n)) + "% set"};

    // upload, download, expansion (transfers only: the data moves between host and device)
    {
        const std::vector<double> up = time_and_record(
            csv, w, "device_bitset upload",
            {{"bitplane upload A (half set)", [&] { const bc::device_bitset t(cpu_a); sync(); }, notes[0]},
             {"bitplane upload B (1/32 set)", [&] { const bc::device_bitset t(cpu_b); sync(); }, notes[1]},
             {"cudaMemcpy dense words pinned (bus)", [&] { h2d(wcopy.p, hwa.p, 4 * words); sync(); }}},
            bitmap);
        const std::vector<double> down = time_and_record(
            csv, w, "device_bitset download",
            {{"bitplane download A encoded", [&] { (void)enc_a.download(); }, "bytes back as uploaded"},
             {"bitplane download B encoded", [&] { (void)enc_b.download(); }},
             {"bitplane download A dense", [&] { (void)dense_a.download(); }, "blocks encoded on the host"},
             {"bitplane download B dense", [&] { (void)dense_b.download(); }},
             {"cudaMemcpy dense words to pinned (bus)", [&] { d2h(hwout.p, wa, 4 * words); sync(); }}},
            bitmap);
        const std::vector<double> expand = time_and_record(
            csv, w, "device_bitset to_dense",
            {{"bitplane to_dense A", [&] { const bc::device_bitset t = enc_a.to_dense(); sync(); }},
             {"bitplane to_dense B", [&] { const bc::device_bitset t = enc_b.to_dense(); sync(); }},
             {"cudaMemcpy dense words D2D (a copy)", [&] { d2d(wcopy.p, wa, 4 * words); sync(); }}},
            bitmap);
        ratios.push_back({w.shape, w.n, "bitset upload A (half set)", 0, 0, up[2] / up[0], 0});
        ratios.push_back({w.shape, w.n, "bitset upload B (1/32 set)", 0, 0, up[2] / up[1], 0});
        ratios.push_back({w.shape, w.n, "bitset download A encoded", 0, 0, down[4] / down[0], 0});
        ratios.push_back({w.shape, w.n, "bitset download A dense", 0, 0, down[4] / down[2], 0});
        ratios.push_back({w.shape, w.n, "bitset to_dense A (vs D2D copy)", expand[2] / expand[0], 0, 0, 0});
    }

    // set algebra
    struct op_case {
        const char* name;
        bit_op op;
        bc::device_bitset (*gpu)(const bc::device_bitset&, const bc::device_bitset&, bc::stream_t);
        bitplane::bitset (*cpu)(const bitplane::bitset&, const bitplane::bitset&);
    };
    const op_case cases[] = {
        {"bitset_and", bit_op::and_op, &bc::bitset_and, [](const bitplane::bitset& x, const bitplane::bitset& y) { return x & y; }},
        {"bitset_or", bit_op::or_op, &bc::bitset_or, [](const bitplane::bitset& x, const bitplane::bitset& y) { return x | y; }},
        {"bitset_xor", bit_op::xor_op, &bc::bitset_xor, [](const bitplane::bitset& x, const bitplane::bitset& y) { return x ^ y; }},
        {"bitset_andnot", bit_op::andnot_op, &bc::bitset_andnot,
         [](const bitplane::bitset& x, const bitplane::bitset& y) { return andnot(x, y); }},
    };
    for (const op_case& c : cases) {
        const std::string op = c.name;
        const bitplane::bitset expected = c.cpu(cpu_a, cpu_b);
        {
            const bc::device_bitset r = c.gpu(enc_a, enc_b, stream0);
            const bc::device_bitset rd = c.gpu(dense_a, dense_b, stream0);
            if (r.download() != expected) fail(w.shape + ": device " + op + " (encoded inputs)");
            if (rd.download() != expected) fail(w.shape + ": device " + op + " (dense inputs)");
            thrust_bitwise(wa, wb, wout.as<u32>(), words, c.op, stream0);
            expect_words(wout.as<u32>(), r.device_words(), w.n, w.shape + ": thrust " + op);
        }
        const std::vector<double> dev = time_and_record(
            csv, w, (op + " device-resident").c_str(),
            {{"bitplane encoded inputs",
              [&] {
                  const bc::device_bitset r = c.gpu(enc_a, enc_b, stream0);
                  sync();
              }},
             {"bitplane dense inputs",
              [&] {
                  const bc::device_bitset r = c.gpu(dense_a, dense_b, stream0);
                  sync();
              }},
             {"thrust::transform dense words", [&] { thrust_bitwise(wa, wb, wout.as<u32>(), words, c.op, stream0); }}},
            2 * bitmap);
        const double cpu =
            time_cpu(csv, w, (op + " device-resident").c_str(), "bitplane CPU bitset", [&] { (void)c.cpu(cpu_a, cpu_b); }, 2 * bitmap);
        ratios.push_back({w.shape, w.n, op + " (encoded in)", dev[2] / dev[0], 0, 0, cpu / dev[0]});
        ratios.push_back({w.shape, w.n, op + " (dense in)", dev[2] / dev[1], 0, 0, cpu / dev[1]});
    }

    // AND with transfers: both sets up (encoded), AND on the device, the result back.
    {
        const bitplane::bitset expected = cpu_a & cpu_b;
        {
            const bc::device_bitset x(cpu_a), y(cpu_b);
            if ((x & y).download() != expected) fail(w.shape + ": bitset_and with transfers");
        }
        const std::vector<double> tr = time_and_record(
            csv, w, "bitset_and with transfer",
            {{"bitplane upload x2 + and + download()",
              [&] {
                  const bc::device_bitset x(cpu_a), y(cpu_b);
                  (void)(x & y).download();
              },
              "result encoded on the host"},
             {"bitplane upload x2 + and + words back",
              [&] {
                  const bc::device_bitset x(cpu_a), y(cpu_b);
                  const bc::device_bitset r = x & y;
                  d2h(hwout.p, r.device_words(), 4 * words);
                  sync();
              }},
             {"thrust dense words up x2 + transform + back",
              [&] {
                  h2d(wcopy.p, hwa.p, 4 * words);
                  h2d(wout.p, hwb.p, 4 * words);
                  thrust_bitwise(wcopy.as<u32>(), wout.as<u32>(), wout.as<u32>(), words, bit_op::and_op, stream0);
                  d2h(hwout.p, wout.p, 4 * words);
                  sync();
              }},
             {"cudaMemcpy dense words up x2 + back (bus)",
              [&] {
                  h2d(wcopy.p, hwa.p, 4 * words);
                  h2d(wout.p, hwb.p, 4 * words);
                  d2h(hwout.p, wout.p, 4 * words);
                  sync();
              }}},
            2 * bitmap);
        ratios.push_back({w.shape, w.n, "bitset_and (download())", 0, tr[2] / tr[0], tr[3] / tr[0], 0});
        ratios.push_back({w.shape, w.n, "bitset_and (words back)", 0, tr[2] / tr[1], tr[3] / tr[1], 0});
    }

    // count: of a dense set (a kernel), and AND + count
    {
        const bc::device_bitset r = bc::bitset_and(enc_a, enc_b, stream0);
        const std::uint64_t expected = bitplane::and_count(cpu_a, cpu_b);
        if (r.count() != expected) fail(w.shape + ": device_bitset count");
        if (thrust_popcount(r.device_words(), words, stream0) != expected) fail(w.shape + ": thrust popcount");
        std::uint64_t both = 0, either = 0;
        thrust_and_or_counts(wa, wb, words, &both, &either, stream0);
        if (both != expected) fail(w.shape + ": thrust AND popcount");
        const std::vector<double> cnt = time_and_record(
            csv, w, "bitset count device-resident",
            {{"bitplane count() of a dense set", [&] { (void)r.count(); }},
             {"thrust::transform_reduce popc dense", [&] { (void)thrust_popcount(r.device_words(), words, stream0); }}},
            bitmap);
        const std::vector<double> and_cnt = time_and_record(
            csv, w, "bitset and + count device-resident",
            {{"bitplane bitset_and(encoded) + count()", [&] { (void)bc::bitset_and(enc_a, enc_b, stream0).count(); }},
             {"thrust::inner_product popc(a&b) dense", [&] {
                  std::uint64_t x = 0, y = 0;
                  thrust_and_or_counts(wa, wb, words, &x, &y, stream0);
              }}},
            2 * bitmap);
        const double cpu = time_cpu(csv, w, "bitset and + count device-resident", "bitplane CPU and_count",
                                    [&] { (void)bitplane::and_count(cpu_a, cpu_b); }, 2 * bitmap);
        ratios.push_back({w.shape, w.n, "bitset count (dense)", cnt[1] / cnt[0], 0, 0, 0});
        ratios.push_back({w.shape, w.n, "bitset and + count", and_cnt[1] / and_cnt[0], 0, 0, cpu / and_cnt[0]});
    }
}

void print_summary(const std::vector<ratio_row>& ratios) {
    std::printf("\nops summary: baseline time / bitplane time (> 1: bitplane faster; 0: no such baseline)\n");
    std::printf("%-10s %11s %-36s %12s %14s %10s %10s\n", "shape", "values", "operation", "dense dev", "dense+transf",
                "bus", "CPU/GPU");
    for (const ratio_row& r : ratios)
        std::printf("%-10s %11zu %-36s %12.3f %14.3f %10.3f %10.3f\n", r.shape.c_str(), r.n, r.op.c_str(), r.dense_device,
                    r.dense_transfer, r.bus, r.cpu);
}

}  // namespace

void run_ops_benchmarks(int min_log2, int max_log2, std::FILE* csv) {
    std::vector<ratio_row> ratios;
    struct size_shape {
        int log2;
        const char* shape;
        unsigned bits;
    };
    std::vector<size_shape> plan;
    for (int lg = min_log2; lg <= max_log2; lg += 2) plan.push_back({lg, "uniform10", 10});
    // The less compressible shape (full-range random: 4 bytes a value and more) at two sizes.
    for (const int lg : {max_log2 - 4, max_log2})
        if (lg >= min_log2) plan.push_back({lg, "random32", 32});
    const auto start = std::chrono::steady_clock::now();
    for (const size_shape& p : plan) {
        const std::size_t n = std::size_t{1} << p.log2;
        std::printf("ops: at %.1f s of this section\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        workload w(p.shape, n, p.bits, 0xD1B54A32D192ED03ull ^ static_cast<std::uint64_t>(p.log2) ^ (std::uint64_t{p.bits} << 40));
        std::printf("ops: n = 2^%d = %zu values (%s, %.3f B/value compressed)\n", p.log2, n, p.shape,
                    static_cast<double>(w.compressed_bytes()) / static_cast<double>(n));
        bench_transfers(csv, w, ratios);
        bench_decode(csv, w, ratios);
        bench_sums(csv, w, ratios);
        const u32 x = w.va[n / 3];
        const u32 lo = static_cast<u32>((std::uint64_t{w.mask} + 1) / 10);
        const u32 hi = static_cast<u32>((std::uint64_t{w.mask} + 1) * 6 / 10);
        bench_scan(csv, w, "find_eq", x, x, ratios);
        bench_scan(csv, w, "find_range", lo, hi, ratios);
        bench_count(csv, w, lo, hi, ratios);
        bench_bitwise(csv, w, ratios);
        bench_similarity(csv, w, ratios);
        bench_bitsets(csv, w, ratios);
    }
    print_summary(ratios);
}

}  // namespace bitplane_bench
