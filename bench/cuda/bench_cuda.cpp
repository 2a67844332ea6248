// bitplane's GPU benchmark: for sizes 2^10 .. 2^28, each GPU operation device-resident and
// with its transfers, against the baselines in this binary: the seed kernel (transpose +
// Hamming), thrust and cuBLAS on the dense values, a plain cudaMemcpy of the dense values (the
// bus limit) and bitplane's CPU path. Sections, in order:
//   bus    plain copies of 256 MiB, pinned and pageable (this file)
//   dot    encode (transpose + Hamming), dot device-resident and with transfers, the
//          executors (CPU, GPU, hybrid) on host-resident vectors (this file)
//   ops    every other operation: transfers, decode, sums, scans, bitwise, similarity,
//          device bitsets (bench_ops.cpp)
//
// Usage: bitplane_cuda_bench [max_log2 = 28] [csv path] [min_log2 = 10] [sections = bus,dot,ops,encode]
// Times are medians of repeated runs (each run synchronous: it ends when its result is where
// the API leaves it), after a warm-up run. Every result is checked against bitplane's CPU path
// before it is timed; a mismatch ends the program with status 3.
#include <bitplane/bitplane.hpp>
#include <bitplane/cuda/device.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/encode.hpp>
#include <bitplane/cuda/exec.hpp>
#include <bitplane/cuda/tuning.hpp>

#include "baselines.hpp"
#include "bench_encode.hpp"
#include "bench_common.hpp"
#include "bench_ops.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace bitplane_bench;

FILE* csv = nullptr;  // the dot section's rows (set by run_dot_benchmarks)

void record(std::size_t n, const char* op, const char* variant, double seconds, double bytes, const char* note = "") {
    bitplane_bench::record(csv, n, op, variant, seconds, bytes, note);
}

struct summary_row {
    std::size_t n;
    double encode_ratio = 0, dot_device_ratio = 0, dot_pinned_ratio = 0, dot_pageable_ratio = 0, hybrid_ratio = 0, auto_ratio = 0;
};

/// Bus: a plain copy of 256 MiB, pinned and pageable, host to device; device to device.
void run_bus_benchmarks(std::FILE* out) {
    csv = out;
    {
        const std::size_t bytes = std::size_t{256} << 20;
        pinned_array h(bytes);
        std::vector<char> pageable(bytes, 1);
        std::memset(h.p, 1, bytes);
        device_array d(bytes);
        const double tp = median_seconds([&] { check(cudaMemcpy(d.p, h.p, bytes, cudaMemcpyHostToDevice), "copy"); });
        const double tq = median_seconds([&] { check(cudaMemcpy(d.p, pageable.data(), bytes, cudaMemcpyHostToDevice), "copy"); });
        const double td = median_event_seconds([&] { cudaMemcpyAsync(d.as<char>(), d.as<char>() + bytes / 2, bytes / 2, cudaMemcpyDeviceToDevice); }, 20);
        std::printf("bus: H2D pinned %.1f GB/s, pageable %.1f GB/s; device copy %.0f GB/s (read + write)\n",
                    static_cast<double>(bytes) / tp / 1e9, static_cast<double>(bytes) / tq / 1e9, static_cast<double>(bytes) / td / 1e9);
        if (csv) {
            std::fprintf(csv, "%zu,memcpy,H2D pinned,%.9f,%.3f,\n", bytes / 4, tp, static_cast<double>(bytes) / tp / 1e9);
            std::fprintf(csv, "%zu,memcpy,H2D pageable,%.9f,%.3f,\n", bytes / 4, tq, static_cast<double>(bytes) / tq / 1e9);
        }
    }
}

/// Encode (transpose + Hamming), dot device-resident and with transfers, and the executors.
void run_dot_benchmarks(int min_log2, int max_log2, std::FILE* out) {
    csv = out;
    const bitplane::exec::rates rates = bitplane::exec::calibrate();
    std::printf("executor rates (calibrated): %s\n", bitplane::exec::describe(rates).c_str());

    std::vector<summary_row> summary;
    for (int lg = min_log2; lg <= max_log2; lg += 2) {
        const std::size_t n = std::size_t{1} << lg;
        std::printf("n = 2^%d = %zu values (10-bit uniform)\n", lg, n);
        summary_row row{n};
        std::uint64_t seed = 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(lg);
        std::vector<std::uint32_t> va(n), vb(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t r = xorshift(seed);
            va[i] = static_cast<std::uint32_t>(r) & 1023u;
            vb[i] = static_cast<std::uint32_t>(r >> 32) & 1023u;
        }
        const bitplane::vector<std::uint32_t> a{std::span<const std::uint32_t>(va)};
        const bitplane::vector<std::uint32_t> b{std::span<const std::uint32_t>(vb)};
        const bitplane::uint128 expected = bitplane::dot(a, b);
        const double dense_bytes = 8.0 * static_cast<double>(n);  // two operands of 4 bytes

        // ---- encode: transpose + Hamming, device-resident ------------------------------------
        const std::size_t blocks = n / 2048;
        device_array dva(4 * n), dvb(4 * n);
        check(cudaMemcpy(dva.p, va.data(), 4 * n, cudaMemcpyHostToDevice), "upload");
        check(cudaMemcpy(dvb.p, vb.data(), 4 * n, cudaMemcpyHostToDevice), "upload");
        if (blocks > 0) {
            device_array planes(4 * n), planes_seed(4 * n), ham(2048 * blocks), ham_seed(2048 * blocks);
            bitplane::cuda::transpose_hamming(dva.as<std::uint32_t>(), blocks, planes.as<std::uint32_t>(),
                                              ham.as<std::uint16_t>());
            bitplane_bench::seed_transpose_hamming(dva.as<std::uint32_t>(), blocks, planes_seed.as<std::uint32_t>(),
                                                   ham_seed.as<std::uint16_t>(), nullptr);
            check(cudaDeviceSynchronize(), "encode");
            std::vector<std::uint32_t> p1(std::min<std::size_t>(n, 2048 * 64)), p2(p1.size());
            std::vector<std::uint16_t> h1(p1.size() / 2), h2(p1.size() / 2);
            check(cudaMemcpy(p1.data(), planes.p, 4 * p1.size(), cudaMemcpyDeviceToHost), "d");
            check(cudaMemcpy(p2.data(), planes_seed.p, 4 * p2.size(), cudaMemcpyDeviceToHost), "d");
            check(cudaMemcpy(h1.data(), ham.p, 2 * h1.size(), cudaMemcpyDeviceToHost), "d");
            check(cudaMemcpy(h2.data(), ham_seed.p, 2 * h2.size(), cudaMemcpyDeviceToHost), "d");
            if (p1 != p2 || h1 != h2) fail("encode: bitplane and seed kernels differ");
            bitplane::block_planes cpu;
            bitplane::transpose(std::span(va).first(2048), cpu);
            const bitplane::hamming_matrix hm = bitplane::compute_hamming_matrix(cpu);
            for (int i = 0; i < 32; ++i)
                for (int j = 0; j < 32; ++j)
                    if (hm[i][j] != h1[i * 32 + j]) fail("encode: Hamming matrix differs from the CPU's");
            const int reps = blocks >= 4096 ? 20 : 100;
            const double t_seed = median_event_seconds([&] {
                bitplane_bench::seed_transpose_hamming(dva.as<std::uint32_t>(), blocks, planes_seed.as<std::uint32_t>(),
                                                       ham_seed.as<std::uint16_t>(), nullptr);
            }, reps);
            const double t_ours = median_event_seconds([&] {
                bitplane::cuda::transpose_hamming(dva.as<std::uint32_t>(), blocks, planes.as<std::uint32_t>(),
                                                  ham.as<std::uint16_t>());
            }, reps);
            record(n, "encode (transpose+Hamming) device", "seed kernel", t_seed, 4.0 * static_cast<double>(n),
                   (std::to_string(t_seed / static_cast<double>(blocks) * 1e9) + " ns/block").c_str());
            record(n, "encode (transpose+Hamming) device", "bitplane ballots", t_ours, 4.0 * static_cast<double>(n),
                   (std::to_string(t_ours / static_cast<double>(blocks) * 1e9) + " ns/block").c_str());
            row.encode_ratio = t_seed / t_ours;
        }

        // ---- dot, device-resident ---------------------------------------------------------------
        const bitplane::cuda::device_vector<std::uint32_t> da(a), db(b);
        if (bitplane::cuda::dot(da, db) != expected) fail("device dot");
        if (bitplane_bench::thrust_dot(dva.as<std::uint32_t>(), dvb.as<std::uint32_t>(), n, nullptr) != expected)
            fail("thrust dot");
        // ours and thrust interleaved (medians of synchronous calls: each ends with the result
        // on the host, launch and copy-back included).
        const std::vector<double> td = interleaved_medians(
            {[&] { (void)bitplane::cuda::dot(da, db); },
             [&] { (void)bitplane_bench::thrust_dot(dva.as<std::uint32_t>(), dvb.as<std::uint32_t>(), n, nullptr); }},
            n >= (std::size_t{1} << 26) ? 2.0 : 0.5, 1001);
        const double t_ours = td[0];
        const double t_thrust = td[1];
        // The other plane-pair kernel (CUDA-core popcounts), for comparison.
        {
            bitplane::cuda::tuning::launch_params forced = bitplane::cuda::tuning::params_for(da.block_count());
            forced.dot_method = static_cast<int>(bitplane::cuda::tuning::dot_method::popcount);
            bitplane::cuda::tuning::force(forced);
            if (bitplane::cuda::dot(da, db) != expected) fail("device dot (popcount kernel)");
            const double t_pop = median_seconds([&] { (void)bitplane::cuda::dot(da, db); });
            bitplane::cuda::tuning::unforce();
            record(n, "dot device-resident", "bitplane popcount kernel", t_pop, dense_bytes);
        }
        const double compressed = static_cast<double>(da.payload_bytes() + db.payload_bytes());
        record(n, "dot device-resident", "bitplane compressed", t_ours, dense_bytes,
               (std::to_string(compressed / static_cast<double>(n)) + " B/value read").c_str());
        record(n, "dot device-resident", "thrust::inner_product dense", t_thrust, dense_bytes);
        if (bitplane_bench::have_cublas()) {
            device_array fa(8 * n), fb(8 * n);
            bitplane_bench::to_double(dva.as<std::uint32_t>(), fa.as<double>(), n);
            bitplane_bench::to_double(dvb.as<std::uint32_t>(), fb.as<double>(), n);
            check(cudaDeviceSynchronize(), "convert");
            const double t_d = median_seconds([&] { (void)bitplane_bench::cublas_ddot(fa.as<double>(), fb.as<double>(), n); });
            record(n, "dot device-resident", "cublasDdot dense double", t_d, dense_bytes);
            bitplane_bench::to_float(dva.as<std::uint32_t>(), fa.as<float>(), n);
            bitplane_bench::to_float(dvb.as<std::uint32_t>(), fb.as<float>(), n);
            check(cudaDeviceSynchronize(), "convert");
            const double t_s = median_seconds([&] { (void)bitplane_bench::cublas_sdot(fa.as<float>(), fb.as<float>(), n); });
            record(n, "dot device-resident", "cublasSdot dense float", t_s, dense_bytes);
        }
        row.dot_device_ratio = t_thrust / t_ours;

        // ---- dot with transfers -----------------------------------------------------------------
        {
            const bitplane::cuda::pinned_vector<std::uint32_t> pa(a), pb(b);
            pinned_array ha(4 * n), hb(4 * n);
            std::memcpy(ha.p, va.data(), 4 * n);
            std::memcpy(hb.p, vb.data(), 4 * n);
            if (bitplane::cuda::dot(pa, pb) != expected) fail("pinned transfer dot");
            if (bitplane::cuda::dot(bitplane::exec::gpu, a, b) != expected) fail("pageable transfer dot");
            const double t_pinned = median_seconds([&] { (void)bitplane::cuda::dot(pa, pb); });
            const double t_pageable = median_seconds([&] { (void)bitplane::cuda::dot(bitplane::exec::gpu, a, b); });
            const auto dense_transfer = [&](const void* x, const void* y) {
                check(cudaMemcpyAsync(dva.p, x, 4 * n, cudaMemcpyHostToDevice, nullptr), "copy");
                check(cudaMemcpyAsync(dvb.p, y, 4 * n, cudaMemcpyHostToDevice, nullptr), "copy");
                return bitplane_bench::thrust_dot(dva.as<std::uint32_t>(), dvb.as<std::uint32_t>(), n, nullptr);
            };
            if (dense_transfer(ha.p, hb.p) != expected) fail("dense transfer dot");
            const double t_dense_pinned = median_seconds([&] { (void)dense_transfer(ha.p, hb.p); });
            const double t_dense_pageable = median_seconds([&] { (void)dense_transfer(va.data(), vb.data()); });
            const double t_copy = median_seconds([&] {
                check(cudaMemcpyAsync(dva.p, ha.p, 4 * n, cudaMemcpyHostToDevice, nullptr), "copy");
                check(cudaMemcpyAsync(dvb.p, hb.p, 4 * n, cudaMemcpyHostToDevice, nullptr), "copy");
                check(cudaStreamSynchronize(nullptr), "sync");
            });
            record(n, "dot with transfer", "bitplane pinned_vector", t_pinned, dense_bytes);
            record(n, "dot with transfer", "thrust dense pinned", t_dense_pinned, dense_bytes);
            record(n, "dot with transfer", "cudaMemcpy dense pinned (bus)", t_copy, dense_bytes);
            record(n, "dot with transfer", "bitplane exec::gpu (pageable)", t_pageable, dense_bytes);
            record(n, "dot with transfer", "thrust dense pageable", t_dense_pageable, dense_bytes);
            row.dot_pinned_ratio = t_dense_pinned / t_pinned;
            row.dot_pageable_ratio = t_dense_pageable / t_pageable;
        }

        // ---- host-resident executors ------------------------------------------------------------
        // Interleaved rounds, medians: the CPU-only decisions at small sizes take microseconds,
        // where a separate timing loop per variant would measure the machine's drift instead.
        {
            if (bitplane::cuda::dot(bitplane::exec::hybrid, a, b) != expected) fail("hybrid dot");
            const double budget = n >= (std::size_t{1} << 26) ? 6.0 : n >= (std::size_t{1} << 22) ? 4.0 : 2.0;
            // The serial CPU library (10x exec::cpu from 2^22 on) is timed apart, so that the
            // rounds of the four executors are short and many.
            const double t_lib = median_seconds([&] { (void)bitplane::dot(a, b); }, n >= (std::size_t{1} << 26) ? 1.0 : 0.25);
            const std::vector<double> t = interleaved_medians(
                {[&] { (void)bitplane::cuda::dot(bitplane::exec::cpu, a, b); },
                 [&] { (void)bitplane::cuda::dot(bitplane::exec::gpu, a, b); },
                 [&] { (void)bitplane::cuda::dot(bitplane::exec::hybrid, a, b); },
                 [&] { (void)bitplane::cuda::dot(bitplane::exec::automatic, a, b); }},
                budget, 3001);
            const double t_cpu = t[0], t_gpu = t[1], t_hyb = t[2], t_auto = t[3];
            const double share = bitplane::exec::planned_cpu_share(bitplane::exec::hybrid, static_cast<std::uint64_t>(compressed));
            record(n, "dot host-resident", "bitplane::dot (CPU library)", t_lib, dense_bytes);
            record(n, "dot host-resident", "exec::cpu", t_cpu, dense_bytes);
            record(n, "dot host-resident", "exec::gpu", t_gpu, dense_bytes);
            record(n, "dot host-resident", "exec::hybrid", t_hyb, dense_bytes,
                   ("cpu share " + std::to_string(share)).c_str());
            record(n, "dot host-resident", "exec::automatic", t_auto, dense_bytes);
            row.hybrid_ratio = t_hyb / std::min(t_cpu, t_gpu);
            row.auto_ratio = t_auto / std::min(t_cpu, t_gpu);
        }
        summary.push_back(row);
    }

    std::printf("\nsummary (ratios; acceptance: encode >= 6, device dot >= 2 at 2^28, pinned transfer dot >= 2.5, hybrid <= 1.05)\n");
    std::printf("%12s %14s %16s %18s %20s %12s %12s\n", "values", "encode/seed", "dot dev vs thrust", "dot pinned vs thr",
                "dot pageable vs thr", "hybrid/best", "auto/best");
    for (const summary_row& r : summary)
        std::printf("%12zu %14.2f %16.2f %18.2f %20.2f %12.3f %12.3f\n", r.n, r.encode_ratio, r.dot_device_ratio,
                    r.dot_pinned_ratio, r.dot_pageable_ratio, r.hybrid_ratio, r.auto_ratio);
}

}  // namespace

int main(int argc, char** argv) {
    const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 28;
    const char* csv_path = argc > 2 ? argv[2] : "bench_cuda.csv";
    const int min_log2 = argc > 3 ? std::atoi(argv[3]) : 10;
    const std::string sections = argc > 4 ? argv[4] : "bus,dot,ops,encode";
    const auto wanted = [&](const std::string& name) { return ("," + sections + ",").find("," + name + ",") != std::string::npos; };
    if (bitplane::cuda::device_count() == 0) {
        std::printf("no CUDA device\n");
        return 0;
    }
    std::FILE* out = std::fopen(csv_path, "w");
    if (out) std::fprintf(out, "values,operation,variant,seconds,GBps,note\n");
    std::printf("device: %s; CPU threads %zu (thread pool: %s); cuBLAS: %s\n", bitplane::cuda::device_name(0).c_str(),
                bitplane::thread_count(), bitplane::parallel_available() ? "oneTBB" : "none (bitplane CPU ops serial; exec::cpu uses std::thread)",
                bitplane_bench::have_cublas() ? "yes" : "no");
    // One line per section.
    if (wanted("bus")) run_bus_benchmarks(out);
    if (wanted("dot")) run_dot_benchmarks(min_log2, max_log2, out);
    if (wanted("ops")) bitplane_bench::run_ops_benchmarks(min_log2, max_log2, out);
    // The full encoder (values to the CPU codec's bytes) against the CPU encoder, 2^16 .. 2^26
    // at most: one CPU thread takes a third of a second for 2^26 random values.
    bool encoded_same = true;
    if (wanted("encode")) encoded_same = run_encode_benchmarks(std::max(min_log2, 16), std::min(max_log2, 26), out);
    if (out) std::fclose(out);
    return encoded_same ? 0 : 1;
}
