// The commands of the bitplane program, one file each, listed in one table (commands.cpp).
// A command registers itself as a CLI11 subcommand (name, help, options bound to its own
// options struct) and returns the function that runs it once the command line is parsed.
// Adding a command: write tools/cmd_<name>.cpp with an add_<name> function, declare it here
// and list it in commands.cpp; docs/cli.md documents it and tests/cli/ tests it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <span>
#include <string>

namespace bitplane::cli {

/// Options every command sees.
struct global_options {
    bool quiet = false;       ///< no progress bar, no summary lines on stdout beyond results
    std::size_t threads = 0;  ///< 0: every hardware thread
    bool sync = false;        ///< flush output files to disk before renaming them
    std::string program = "bitplane";  ///< how the program was invoked (argv[0]), for hints
};

using command_runner = std::function<void()>;
using command_adder = command_runner (*)(CLI::App& root, const global_options& global);

struct command {
    const char* name;
    command_adder add;
};

/// Every command, in the order `bitplane --help` lists them.
[[nodiscard]] std::span<const command> command_table();

command_runner add_pack(CLI::App& root, const global_options& global);
command_runner add_unpack(CLI::App& root, const global_options& global);
command_runner add_stats(CLI::App& root, const global_options& global);
command_runner add_sum(CLI::App& root, const global_options& global);
command_runner add_dot(CLI::App& root, const global_options& global);
command_runner add_count(CLI::App& root, const global_options& global);
command_runner add_find(CLI::App& root, const global_options& global);
command_runner add_and(CLI::App& root, const global_options& global);
command_runner add_or(CLI::App& root, const global_options& global);
command_runner add_xor(CLI::App& root, const global_options& global);
command_runner add_gc(CLI::App& root, const global_options& global);
command_runner add_demo(CLI::App& root, const global_options& global);

}  // namespace bitplane::cli
