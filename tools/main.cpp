// bitplane: the command-line tool. Parses the command line with CLI11, runs the chosen
// command, and turns every failure into a message on stderr and an exit code (cli_error.hpp;
// docs/cli.md): 0 ok, 1 usage, 2 bad input, 3 I/O, 4 internal.
#include "cli_error.hpp"
#include "commands.hpp"
#include "output_file.hpp"
#include "signals.hpp"

#include <bitplane/parallel.hpp>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr const char* footer =
    "Exit codes: 0 ok, 1 usage error, 2 bad input, 3 I/O error, 4 internal error.\n"
    "Run `bitplane demo` for a tour; `bitplane COMMAND --help` for each command.";

// Output lost on the way (a full disk behind `> file`, a closed terminal) must not end in exit 0:
// results go through stdio, whose buffer is written at the latest here, and whose error flag
// remembers any earlier failed write. `code` is kept when the command failed already.
int checked_stdout(int code) {
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (flushed && !std::ferror(stdout)) return code;
    std::fprintf(stderr, "bitplane: standard output: write failed: %s\n",
                 error != 0 ? std::strerror(error) : "output error");
    return code == bitplane::cli::exit_ok ? bitplane::cli::exit_io : code;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace bitplane::cli;
    install_signal_handlers();

    CLI::App app("bitplane: compressed integer columns (bit-plane blocks of 2048 values)", "bitplane");
    app.footer(footer);
    app.require_subcommand(1);
    app.set_version_flag("--version", "bitplane 0.1.0");
    global_options global;
    if (argc > 0 && argv[0] != nullptr && *argv[0] != '\0') global.program = argv[0];
    app.add_flag("-q,--quiet", global.quiet, "No progress bar and no summary lines, results only");
    app.add_option("--threads", global.threads, "Threads for encoding and operations (default: all)")
        ->check(CLI::Range(1, 1024));
    app.add_flag("--sync", global.sync, "Flush output files to disk before renaming them into place (durable on power loss)");

    struct registered {
        CLI::App* app;
        command_runner run;
    };
    std::vector<registered> commands;
    for (const command& c : command_table()) {
        command_runner run = c.add(app, global);
        commands.push_back({app.get_subcommand(c.name), std::move(run)});
    }

    // CLI11 would answer a misspelt command with "A subcommand is required": name it instead.
    const auto known = [](const char* name) {
        for (const command& c : command_table())
            if (std::string_view(c.name) == name) return true;
        return false;
    };
    if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
        std::string names;
        for (const command& c : command_table()) names += std::string(names.empty() ? "" : ", ") + c.name;
        std::fprintf(stderr, "bitplane: unknown command \"%s\" (commands: %s; bitplane --help)\n", argv[1], names.c_str());
        return exit_usage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --version
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // prints the message (and a hint to --help) on stderr
        return exit_usage;
    }

    try {
        if (global.threads != 0) bitplane::set_thread_count(global.threads);
        output_file::set_sync_outputs(global.sync);
        for (const registered& r : commands)
            if (r.app->parsed()) r.run();
        return checked_stdout(exit_ok);
    } catch (const failure& e) {
        std::fprintf(stderr, "bitplane: %s\n", e.what());
        return checked_stdout(e.code());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bitplane: %s\n", e.what());
        return checked_stdout(code_for(e));
    }
}
