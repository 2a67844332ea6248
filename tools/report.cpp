#include "report.hpp"

#include <bitplane/error.hpp>

#include <array>
#include <cerrno>
#include <cstring>

namespace bitplane::cli {

std::string human_bytes(std::uint64_t bytes) {
    static constexpr std::array units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < units.size()) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return text;
}

void write_stdout(std::string_view bytes) {
    if (bytes.empty()) return;
    errno = 0;
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size()) return;
    const int error = errno;
    throw io_error(std::string("standard output: write failed: ") + (error != 0 ? std::strerror(error) : "output error"));
}

void print_json(const nlohmann::json& value) { std::printf("%s\n", value.dump(2).c_str()); }

CLI::Option* add_type_option(CLI::App& command, bool& is_signed, const std::string& what) {
    static const std::map<std::string, bool> types = {{"u32", false}, {"uint32", false}, {"i32", true}, {"int32", true}};
    return command.add_option("--type", is_signed, "Value type of " + what + ": u32 (default) or i32")
        ->transform(CLI::CheckedTransformer(types, CLI::ignore_case))
        ->option_text("u32|i32");
}

}  // namespace bitplane::cli
