// Exit codes of the bitplane program and the one exception type its commands end with.
//
// Library errors (bitplane::error and its subclasses) map to exit codes by kind; commands
// wrap what they do with a file in `about_file`, so that the message names the file. main()
// prints "bitplane: <message>" on stderr and exits with the code. docs/cli.md documents them.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace bitplane::cli {

enum exit_code : int {
    exit_ok = 0,
    exit_usage = 1,      ///< the command line is wrong (unknown option, bad value, missing argument)
    exit_bad_input = 2,  ///< an input is malformed (CSV cell, .bp file, sizes that do not match)
    exit_io = 3,         ///< a file could not be opened, read, written or renamed
    exit_internal = 4,   ///< out of memory or a bug: anything else
};

/// A failure with its exit code and a complete message (file name included).
class failure : public std::runtime_error {
public:
    failure(exit_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
    [[nodiscard]] exit_code code() const noexcept { return code_; }

private:
    exit_code code_;
};

/// The exit code for an exception thrown by the library or the standard library.
[[nodiscard]] exit_code code_for(const std::exception& e) noexcept;

/// A usage error (exit 1).
[[nodiscard]] inline failure usage_failure(const std::string& message) { return failure(exit_usage, message); }

/// Runs `f`; a bitplane error or standard exception escaping it becomes a failure whose
/// message starts with "<path>: ". Failures pass through unchanged.
template <class F>
decltype(auto) about_file(const std::string& path, F&& f) {
    try {
        return std::forward<F>(f)();
    } catch (const failure&) {
        throw;
    } catch (const std::exception& e) {
        throw failure(code_for(e), path + ": " + e.what());
    }
}

}  // namespace bitplane::cli
