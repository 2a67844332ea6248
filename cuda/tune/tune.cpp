// bitplane-tune: sweeps launch parameters of bitplane's CUDA kernels per data-size range on the
// present GPU, and writes
//   <out>/tuning.json   the table bitplane::cuda loads at run time (BITPLANE_CUDA_TUNING=path):
//                       per size range, the fastest setting of each family below;
//   <out>/tune.csv      every measurement: values, family, parameter, setting, seconds;
// (plot_tune.gp beside this file draws tune.csv into a PNG of time against parameters, one
// panel per family, one line per size).
//
// Families swept (each with the others at their defaults):
//   dot        dot_method (mma, popcount) x dot_ctas_per_sm (CTAs per multiprocessor) on
//              device-resident 10-bit vectors;
//   scan       scan_ctas_per_sm, find_range on the same data;
//   transfer   streams x batch_bytes of the pinned transfer pipeline (dot of pinned_vectors).
// Times are medians of synchronous calls (each ends with its result on the host).
//
// Usage: bitplane-tune [out dir = .] [largest size log2 = 26]
#include <bitplane/bitplane.hpp>
#include <bitplane/cuda/device.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/exec.hpp>
#include <bitplane/cuda/scan.hpp>
#include <bitplane/cuda/tuning.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace tuning = bitplane::cuda::tuning;

double median_seconds(const std::function<void()>& run, int reps) {
    using clock = std::chrono::steady_clock;
    run();
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = clock::now();
        run();
        times.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

struct best_of {
    double seconds = std::numeric_limits<double>::infinity();
    tuning::launch_params params;
};

}  // namespace

int main(int argc, char** argv) {
    const std::string out = argc > 1 ? argv[1] : ".";
    const int max_log2 = argc > 2 ? std::atoi(argv[2]) : 26;
    if (bitplane::cuda::device_count() == 0) {
        std::fprintf(stderr, "bitplane-tune: no CUDA device\n");
        return 1;
    }
    const std::string device = tuning::current_device_name();
    std::ofstream csv(out + "/tune.csv");
    csv << "values,family,parameter,setting,seconds\n";
    std::printf("bitplane-tune on %s\n", device.c_str());

    std::vector<int> sizes;
    for (int lg = 16; lg <= max_log2; lg += 2) sizes.push_back(lg);
    std::string ranges;
    std::mt19937_64 rng(20241122u);
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        const int lg = sizes[k];
        const std::size_t n = std::size_t{1} << lg;
        std::vector<std::uint32_t> va(n), vb(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t r = rng();
            va[i] = static_cast<std::uint32_t>(r) & 1023u;
            vb[i] = static_cast<std::uint32_t>(r >> 32) & 1023u;
        }
        const bitplane::vector<std::uint32_t> a{std::span<const std::uint32_t>(va)};
        const bitplane::vector<std::uint32_t> b{std::span<const std::uint32_t>(vb)};
        const bitplane::uint128 expected = bitplane::dot(a, b);
        const bitplane::cuda::device_vector<std::uint32_t> da(a), db(b);
        const bitplane::cuda::pinned_vector<std::uint32_t> pa(a), pb(b);
        const int reps = lg >= 24 ? 15 : 41;
        const auto row = [&](const char* family, const char* parameter, const std::string& setting, double s) {
            csv << n << ',' << family << ',' << parameter << ',' << setting << ',' << s << '\n';
            std::printf("  2^%d %-9s %-28s %-12s %10.4f ms\n", lg, family, parameter, setting.c_str(), s * 1e3);
        };
        tuning::launch_params chosen;

        // dot: kernel x CTAs per multiprocessor.
        best_of dot;
        for (const int method : {static_cast<int>(tuning::dot_method::mma), static_cast<int>(tuning::dot_method::popcount)})
            for (const int ctas : {1, 2, 3, 4, 6, 8}) {
                tuning::launch_params p;
                p.dot_method = method;
                p.dot_ctas_per_sm = ctas;
                tuning::force(p);
                if (bitplane::cuda::dot(da, db) != expected) {
                    std::fprintf(stderr, "bitplane-tune: wrong dot with method %d, %d CTAs\n", method, ctas);
                    return 2;
                }
                const double s = median_seconds([&] { (void)bitplane::cuda::dot(da, db); }, reps);
                row("dot", method == 1 ? "mma ctas_per_sm" : "popcount ctas_per_sm", std::to_string(ctas), s);
                if (s < dot.seconds) dot = {s, p};
            }
        chosen.dot_method = dot.params.dot_method;
        chosen.dot_ctas_per_sm = dot.params.dot_ctas_per_sm;

        // scans: CTAs per multiprocessor.
        best_of scan;
        for (const int ctas : {1, 2, 4, 8, 16, 32}) {
            tuning::launch_params p;
            p.scan_ctas_per_sm = ctas;
            tuning::force(p);
            const double s = median_seconds([&] { (void)bitplane::cuda::find_range(da, 100u, 300u).count(); }, reps);
            row("scan", "scan ctas_per_sm", std::to_string(ctas), s);
            if (s < scan.seconds) scan = {s, p};
        }
        chosen.scan_ctas_per_sm = scan.params.scan_ctas_per_sm;

        // transfer pipeline: streams x batch bytes.
        best_of transfer;
        for (const int streams : {1, 2, 4, 8})
            for (const std::size_t mib : {1, 4, 16}) {
                tuning::unforce();
                const bitplane::cuda::transfer_options o{streams, mib << 20};
                if (bitplane::cuda::dot(pa, pb, o) != expected) {
                    std::fprintf(stderr, "bitplane-tune: wrong transfer dot\n");
                    return 2;
                }
                const double s = median_seconds([&] { (void)bitplane::cuda::dot(pa, pb, o); }, reps);
                row("transfer", ("streams batch " + std::to_string(mib) + " MiB").c_str(), std::to_string(streams), s);
                if (s < transfer.seconds) {
                    transfer.seconds = s;
                    transfer.params.streams = streams;
                    transfer.params.batch_bytes = mib << 20;
                }
            }
        chosen.streams = transfer.params.streams;
        chosen.batch_bytes = transfer.params.batch_bytes;
        tuning::unforce();

        // This size stands for blocks up to twice its own (the last: every size beyond).
        const std::uint64_t blocks = n / 2048;
        const std::uint64_t max_blocks = k + 1 == sizes.size() ? std::uint64_t{1} << 40 : 2 * blocks;
        char entry[512];
        std::snprintf(entry, sizeof entry,
                      "%s    {\"max_blocks\": %llu, \"dot_method\": %d, \"dot_ctas_per_sm\": %d, \"scan_ctas_per_sm\": %d, "
                      "\"streams\": %d, \"batch_bytes\": %zu}",
                      ranges.empty() ? "" : ",\n", static_cast<unsigned long long>(max_blocks), chosen.dot_method,
                      chosen.dot_ctas_per_sm, chosen.scan_ctas_per_sm, chosen.streams, chosen.batch_bytes);
        ranges += entry;
    }
    {
        std::ofstream json(out + "/tuning.json");
        json << "{\"device\": \"" << device << "\", \"ranges\": [\n" << ranges << "\n]}\n";
    }  // closed (flushed) before it is read back below
    std::printf("wrote %s/tuning.json and %s/tune.csv\n", out.c_str(), out.c_str());
    // The table must load back for this device.
    const std::size_t loaded = tuning::load_table(out + "/tuning.json");
    std::printf("table loads back: %zu ranges\n", loaded);
    return loaded == sizes.size() ? 0 : 3;
}
