// Signals, for the program as a whole (install_signal_handlers() at the start of main):
// - SIGINT, SIGTERM, SIGHUP and SIGPIPE unlink every registered temporary output and then
//   kill the program with the same signal (so that the caller sees the usual exit status, 128
//   + signal in a shell). A signal that the program inherited as ignored stays ignored: under
//   `nohup` (SIGHUP ignored) a hang-up does not stop the work, and an ignored SIGPIPE makes a
//   write to a closed pipe fail with EPIPE, which is reported as an I/O error (exit 3).
// - SIGXFSZ is ignored: past `ulimit -f` a write fails with EFBIG, which output_file reports
//   as an I/O error (exit 3) naming the file, and its temporary file is removed.
// - SIGBUS inside a registered mapping of an input file (the file shrank while it was mapped:
//   truncated, rotated) removes the temporary outputs, prints "bitplane: <path>: the file
//   shrank while it was read" and exits with 3 (an I/O error). A SIGBUS elsewhere is a crash.
// Registration is async-signal-safe on the handler's side: fixed slots, atomic fields.
#pragma once

#include <cstddef>

namespace bitplane::cli {

void install_signal_handlers();

/// Registers a path to unlink on a signal; returns its slot, or -1 when every slot is taken
/// (then the path is merely not cleaned up on a signal). The path must stay valid.
int register_cleanup(const char* path) noexcept;
/// Forgets a slot (after the file was renamed or removed).
void unregister_cleanup(int slot) noexcept;

/// Registers [begin, begin + size), a mapping of the input file `path` (which must stay
/// valid), for the SIGBUS handler; returns its slot, or -1 when every slot is taken (then a
/// SIGBUS there is reported as a crash).
int register_mapping(const void* begin, std::size_t size, const char* path) noexcept;
void unregister_mapping(int slot) noexcept;

}  // namespace bitplane::cli
