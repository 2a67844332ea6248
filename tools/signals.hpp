// Removing temporary output files when the program is interrupted. install_signal_handlers()
// makes SIGINT, SIGTERM, SIGHUP and SIGPIPE unlink every registered path and then die of the
// same signal (so that the caller sees the usual exit status, 128 + signal in a shell).
// Registration is async-signal-safe on the handler's side: fixed slots, atomic flags.
#pragma once

namespace bitplane::cli {

void install_signal_handlers();

/// Registers a path to unlink on a signal; returns its slot, or -1 when every slot is taken
/// (then the path is merely not cleaned up on a signal). The path must stay valid.
int register_cleanup(const char* path) noexcept;
/// Forgets a slot (after the file was renamed or removed).
void unregister_cleanup(int slot) noexcept;

}  // namespace bitplane::cli
