#include "signals.hpp"

#include "cli_error.hpp"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <unistd.h>

namespace bitplane::cli {

namespace {

// A handful of outputs can be open at once (commands write one; the demo writes one at a time).
constexpr int slot_count = 8;
std::atomic<const char*> slots[slot_count];

// Input mappings: pack maps one window of its input at a time.
struct mapping_slot {
    std::atomic<std::uintptr_t> begin{0};
    std::atomic<std::uintptr_t> end{0};
    std::atomic<const char*> path{nullptr};
    std::atomic<bool> taken{false};
};
constexpr int mapping_count = 4;
mapping_slot mappings[mapping_count];

constexpr int ended_by[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

void remove_outputs() noexcept {
    for (auto& slot : slots) {
        if (const char* path = slot.exchange(nullptr)) ::unlink(path);
    }
}

void say(const char* text) noexcept {
    std::size_t left = std::strlen(text);
    while (left > 0) {
        const ssize_t done = ::write(STDERR_FILENO, text, left);
        if (done <= 0) return;
        text += done;
        left -= static_cast<std::size_t>(done);
    }
}

extern "C" void on_signal(int signal) {
    remove_outputs();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

extern "C" void on_bus(int signal, siginfo_t* info, void*) {
    const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (auto& m : mappings) {
        const std::uintptr_t begin = m.begin.load();
        const std::uintptr_t end = m.end.load();
        const char* path = m.path.load();
        if (path == nullptr || at < begin || at >= end) continue;
        remove_outputs();
        say("bitplane: ");
        say(path);
        say(": the file shrank while it was read (truncated or replaced by another program)\n");
        ::_exit(exit_io);
    }
    remove_outputs();
    std::signal(signal, SIG_DFL);  // a crash: dies of SIGBUS once the handler returns
    std::raise(signal);
}

}  // namespace

void install_signal_handlers() {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (const int signal : ended_by) sigaddset(&action.sa_mask, signal);
    for (const int signal : ended_by) {
        struct sigaction inherited {};
        if (::sigaction(signal, nullptr, &inherited) == 0 && inherited.sa_handler == SIG_IGN) continue;  // nohup
        ::sigaction(signal, &action, nullptr);
    }
    std::signal(SIGXFSZ, SIG_IGN);
    struct sigaction bus {};
    bus.sa_sigaction = on_bus;
    bus.sa_flags = SA_SIGINFO;
    sigemptyset(&bus.sa_mask);
    for (const int signal : ended_by) sigaddset(&bus.sa_mask, signal);
    ::sigaction(SIGBUS, &bus, nullptr);
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

int register_mapping(const void* begin, std::size_t size, const char* path) noexcept {
    for (int i = 0; i < mapping_count; ++i) {
        bool expected = false;
        if (!mappings[i].taken.compare_exchange_strong(expected, true)) continue;
        const auto b = reinterpret_cast<std::uintptr_t>(begin);
        mappings[i].begin.store(b);
        mappings[i].end.store(b + size);
        mappings[i].path.store(path);
        return i;
    }
    return -1;
}

void unregister_mapping(int slot) noexcept {
    if (slot < 0 || slot >= mapping_count) return;
    mappings[slot].path.store(nullptr);
    mappings[slot].begin.store(0);
    mappings[slot].end.store(0);
    mappings[slot].taken.store(false);
}

}  // namespace bitplane::cli
