// Launch parameters per device and size range: built-in defaults, replaced by the table that
// bitplane-tune writes (JSON, keyed by device name) when BITPLANE_CUDA_TUNING names one.
//
// The table's format (tools/tune writes it; this reader accepts exactly that shape):
//   {"device": "<name>", "ranges": [
//     {"max_blocks": N, "dot_planes_ctas_per_sm": a, "dot_values_ctas_per_sm": b,
//      "streams": s, "batch_bytes": n}, ...]}
// Ranges are in increasing max_blocks; a reduction over B blocks uses the first range with
// B <= max_blocks (the last one beyond). A table for another device name is ignored.
#include "dispatch.hpp"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace bitplane::cuda::dispatch {
namespace {

struct range_entry {
    std::uint64_t max_blocks = 0;
    launch_params params;
};

// The number after "key": in `text` from `from`, or `fallback`.
double number_after(const std::string& text, const std::string& key, std::size_t from, std::size_t to, double fallback) {
    const std::size_t at = text.find("\"" + key + "\"", from);
    if (at == std::string::npos || at >= to) return fallback;
    const std::size_t colon = text.find(':', at);
    if (colon == std::string::npos) return fallback;
    return std::strtod(text.c_str() + colon + 1, nullptr);
}

std::vector<range_entry> load_table(const std::string& device) {
    std::vector<range_entry> table;
    const char* path = std::getenv("BITPLANE_CUDA_TUNING");
    if (path == nullptr || *path == '\0') return table;
    std::ifstream in(path);
    if (!in) return table;
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    if (text.find("\"device\": \"" + device + "\"") == std::string::npos) return table;
    std::size_t at = text.find("\"ranges\"");
    while (at != std::string::npos) {
        const std::size_t open = text.find('{', at);
        if (open == std::string::npos) break;
        const std::size_t close = text.find('}', open);
        if (close == std::string::npos) break;
        range_entry e;
        const launch_params d;
        e.max_blocks = static_cast<std::uint64_t>(number_after(text, "max_blocks", open, close, 0));
        e.params.dot_planes_ctas_per_sm =
            static_cast<int>(number_after(text, "dot_planes_ctas_per_sm", open, close, d.dot_planes_ctas_per_sm));
        e.params.dot_values_ctas_per_sm =
            static_cast<int>(number_after(text, "dot_values_ctas_per_sm", open, close, d.dot_values_ctas_per_sm));
        e.params.streams = static_cast<int>(number_after(text, "streams", open, close, d.streams));
        e.params.batch_bytes =
            static_cast<std::size_t>(number_after(text, "batch_bytes", open, close, static_cast<double>(d.batch_bytes)));
        if (e.params.dot_planes_ctas_per_sm < 1 || e.params.dot_planes_ctas_per_sm > 64) e.params.dot_planes_ctas_per_sm = d.dot_planes_ctas_per_sm;
        if (e.params.dot_values_ctas_per_sm < 1 || e.params.dot_values_ctas_per_sm > 64) e.params.dot_values_ctas_per_sm = d.dot_values_ctas_per_sm;
        if (e.params.streams < 1 || e.params.streams > 64) e.params.streams = d.streams;
        if (e.params.batch_bytes < 4096) e.params.batch_bytes = d.batch_bytes;
        if (e.max_blocks > 0) table.push_back(e);
        at = close;
        if (text.find('{', close) == std::string::npos) break;
    }
    return table;
}

}  // namespace

launch_params params_for(std::uint64_t blocks) {
    static std::mutex mutex;
    static int loaded_device = -1;
    static std::vector<range_entry> table;
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    const std::lock_guard lock(mutex);
    if (device != loaded_device) {
        cudaDeviceProp properties{};
        check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
        table = load_table(properties.name);
        loaded_device = device;
    }
    for (const range_entry& e : table)
        if (blocks <= e.max_blocks) return e.params;
    return table.empty() ? launch_params{} : table.back().params;
}

}  // namespace bitplane::cuda::dispatch
