// Small helpers for what commands print: sizes for people, JSON for programs, and the value
// types accepted by --type.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>

namespace bitplane::cli {

/// "12.3 MiB", "512 B".
[[nodiscard]] std::string human_bytes(std::uint64_t bytes);

/// Writes bytes on stdout; io_error ("standard output: write failed: ...") when they cannot
/// all be written, so that a long listing stops at the first lost write. (Everything else
/// printed is checked once at exit: main.cpp.)
void write_stdout(std::string_view bytes);

/// Prints JSON on stdout, indented, with a final newline.
void print_json(const nlohmann::json& value);

/// Adds `--type u32|i32` bound to `is_signed` (u32 by default).
CLI::Option* add_type_option(CLI::App& command, bool& is_signed, const std::string& what);

}  // namespace bitplane::cli
