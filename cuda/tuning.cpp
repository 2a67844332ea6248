// Launch parameters per device and size range (include/bitplane/cuda/tuning.hpp): built-in
// defaults, replaced by the table that bitplane-tune writes (JSON, keyed by device name) when
// BITPLANE_CUDA_TUNING names one or load_table() is called, or a forced set.
//
// The table's format (cuda/tune writes it; this reader accepts exactly that shape):
//   {"device": "<name>", "ranges": [
//     {"max_blocks": N, "dot_method": m, "dot_ctas_per_sm": a, "dot_values_ctas_per_sm": b,
//      "sum_ctas_per_sm": c, "decode_ctas_per_sm": d, "scan_ctas_per_sm": e,
//      "streams": s, "batch_bytes": n}, ...]}
// Every key but max_blocks may be left out (its default then). Ranges are in increasing
// max_blocks; work over B blocks uses the first range with B <= max_blocks (the last one
// beyond). A table for another device name is ignored. (The earlier key
// "dot_planes_ctas_per_sm" is read as dot_ctas_per_sm.)
#include <bitplane/cuda/tuning.hpp>

#include "dispatch.hpp"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace bitplane::cuda::tuning {
namespace {

struct range_entry {
    std::uint64_t max_blocks = 0;
    launch_params params;
};

// The number after "key": in text[from, to), or `fallback`.
double number_after(const std::string& text, const std::string& key, std::size_t from, std::size_t to, double fallback) {
    const std::size_t at = text.find("\"" + key + "\"", from);
    if (at == std::string::npos || at >= to) return fallback;
    const std::size_t colon = text.find(':', at);
    if (colon == std::string::npos || colon >= to) return fallback;
    return std::strtod(text.c_str() + colon + 1, nullptr);
}

int clamp_int(double v, int lo, int hi, int fallback) {
    return v >= lo && v <= hi ? static_cast<int>(v) : fallback;
}

std::vector<range_entry> parse_table(const std::string& text, const std::string& device) {
    std::vector<range_entry> table;
    if (text.find("\"device\": \"" + device + "\"") == std::string::npos &&
        text.find("\"device\":\"" + device + "\"") == std::string::npos)
        return table;
    const std::size_t ranges = text.find("\"ranges\"");
    if (ranges == std::string::npos) return table;
    std::size_t at = ranges;
    for (;;) {
        const std::size_t open = text.find('{', at);
        if (open == std::string::npos) break;
        const std::size_t close = text.find('}', open);
        if (close == std::string::npos) break;
        const launch_params d;
        range_entry e;
        auto num = [&](const char* key, double fallback) { return number_after(text, key, open, close, fallback); };
        e.max_blocks = static_cast<std::uint64_t>(num("max_blocks", 0));
        e.params.dot_method = clamp_int(num("dot_method", d.dot_method), 0, 1, d.dot_method);
        e.params.dot_ctas_per_sm = clamp_int(num("dot_ctas_per_sm", num("dot_planes_ctas_per_sm", d.dot_ctas_per_sm)),
                                             1, 64, d.dot_ctas_per_sm);
        e.params.dot_values_ctas_per_sm = clamp_int(num("dot_values_ctas_per_sm", d.dot_values_ctas_per_sm), 1, 64,
                                                    d.dot_values_ctas_per_sm);
        e.params.sum_ctas_per_sm = clamp_int(num("sum_ctas_per_sm", d.sum_ctas_per_sm), 1, 64, d.sum_ctas_per_sm);
        e.params.decode_ctas_per_sm = clamp_int(num("decode_ctas_per_sm", d.decode_ctas_per_sm), 1, 64, d.decode_ctas_per_sm);
        e.params.scan_ctas_per_sm = clamp_int(num("scan_ctas_per_sm", d.scan_ctas_per_sm), 1, 64, d.scan_ctas_per_sm);
        e.params.streams = clamp_int(num("streams", d.streams), 1, 64, d.streams);
        const double batch = num("batch_bytes", static_cast<double>(d.batch_bytes));
        e.params.batch_bytes = batch >= 4096 && batch <= 1e12 ? static_cast<std::size_t>(batch) : d.batch_bytes;
        if (e.max_blocks > 0) table.push_back(e);
        at = close;
    }
    return table;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return {};
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

struct state {
    std::mutex mutex;
    int loaded_device = -1;
    std::vector<range_entry> table;
    std::optional<launch_params> forced;
};

state& shared() {
    static state s;
    return s;
}

int current_device() {
    int device = 0;
    dispatch::check(cudaGetDevice(&device), "cudaGetDevice");
    return device;
}

}  // namespace

std::string current_device_name() {
    cudaDeviceProp properties{};
    dispatch::check(cudaGetDeviceProperties(&properties, current_device()), "cudaGetDeviceProperties");
    return properties.name;
}

launch_params params_for(std::uint64_t blocks) {
    state& s = shared();
    const int device = current_device();
    const std::lock_guard lock(s.mutex);
    if (s.forced) return *s.forced;
    if (device != s.loaded_device) {
        const char* path = std::getenv("BITPLANE_CUDA_TUNING");
        s.table = path != nullptr && *path != '\0' ? parse_table(read_file(path), current_device_name())
                                                   : std::vector<range_entry>{};
        s.loaded_device = device;
    }
    for (const range_entry& e : s.table)
        if (blocks <= e.max_blocks) return e.params;
    return s.table.empty() ? launch_params{} : s.table.back().params;
}

void force(const launch_params& p) {
    const std::lock_guard lock(shared().mutex);
    shared().forced = p;
}

void unforce() {
    const std::lock_guard lock(shared().mutex);
    shared().forced.reset();
}

std::size_t load_table(const std::string& path) {
    const int device = current_device();
    std::vector<range_entry> table = parse_table(read_file(path), current_device_name());
    const std::lock_guard lock(shared().mutex);
    shared().table = std::move(table);
    shared().loaded_device = device;
    return shared().table.size();
}

}  // namespace bitplane::cuda::tuning
