#include "signals.hpp"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace bitplane::cli {

namespace {

// A handful of outputs can be open at once (commands write one; the demo writes one at a time).
constexpr int slot_count = 8;
std::atomic<const char*> slots[slot_count];

extern "C" void on_signal(int signal) {
    for (auto& slot : slots) {
        if (const char* path = slot.exchange(nullptr)) ::unlink(path);
    }
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

}  // namespace

void install_signal_handlers() {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&action.sa_mask, signal);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::sigaction(signal, &action, nullptr);
}

int register_cleanup(const char* path) noexcept {
    for (int i = 0; i < slot_count; ++i) {
        const char* expected = nullptr;
        if (slots[i].compare_exchange_strong(expected, path)) return i;
    }
    return -1;
}

void unregister_cleanup(int slot) noexcept {
    if (slot >= 0 && slot < slot_count) slots[slot].store(nullptr);
}

}  // namespace bitplane::cli
