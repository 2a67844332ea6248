#include "cli_error.hpp"

#include <bitplane/error.hpp>

#include <new>

namespace bitplane::cli {

exit_code code_for(const std::exception& e) noexcept {
    if (const auto* f = dynamic_cast<const failure*>(&e)) return f->code();
    if (dynamic_cast<const argument_error*>(&e)) return exit_usage;
    if (dynamic_cast<const io_error*>(&e)) return exit_io;
    // Everything else the library reports is about the data it was given.
    if (dynamic_cast<const parse_error*>(&e) || dynamic_cast<const format_error*>(&e) ||
        dynamic_cast<const size_error*>(&e) || dynamic_cast<const index_error*>(&e))
        return exit_bad_input;
    return exit_internal;  // std::bad_alloc, logic errors: not the user's input
}

}  // namespace bitplane::cli
