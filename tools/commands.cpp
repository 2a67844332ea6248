#include "commands.hpp"

#include <array>

namespace bitplane::cli {

std::span<const command> command_table() {
    static constexpr std::array table = {
        command{"demo", add_demo}, command{"pack", add_pack}, command{"unpack", add_unpack},
        command{"stats", add_stats}, command{"sum", add_sum},   command{"dot", add_dot},
        command{"count", add_count}, command{"find", add_find}, command{"and", add_and},
        command{"or", add_or},       command{"xor", add_xor}, command{"gc", add_gc},
    };
    return table;
}

}  // namespace bitplane::cli
