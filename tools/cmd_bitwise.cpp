// bitplane and|or|xor A.bp B.bp [-o OUT.bp]: element-wise bitwise operations computed on the
// compressed planes; the result is a compressed column, summarized and optionally saved.
#include "cli_error.hpp"
#include "commands.hpp"
#include "operands.hpp"
#include "report.hpp"
#include "timer.hpp"

#include <bitplane/bitwise.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/serialize.hpp>

#include <cstdio>
#include <memory>
#include <string>

namespace bitplane::cli {

namespace {

struct bitwise_options {
    std::string a;
    std::string b;
    std::string output;
    bool json = false;
};

enum class bit_op { and_, or_, xor_ };

template <class T>
vector<T> apply(bit_op op, const vector<T>& a, const vector<T>& b) {
    switch (op) {
        case bit_op::and_: return a & b;
        case bit_op::or_: return a | b;
        case bit_op::xor_: return a ^ b;
    }
    return {};
}

command_runner add_bitwise(CLI::App& root, const global_options& global, const char* name, bit_op op, const char* help) {
    auto o = std::make_shared<bitwise_options>();
    CLI::App* c = root.add_subcommand(name, help);
    c->add_option("A", o->a, "The first .bp file")->required();
    c->add_option("B", o->b, "The second .bp file")->required();
    c->add_option("-o,--output", o->output, "Save the result to this .bp file");
    c->add_flag("--json", o->json, "Print the summary as JSON");
    return [o, op, name, &global] {
        const operand_pair p = load_pair(o->a, o->b);
        any_vector result;
        const double seconds = timed([&] {
            result = about_file(o->a + ", " + o->b, [&] {
                return std::visit(
                    [&](const auto& a) -> any_vector {
                        using V = std::decay_t<decltype(a)>;
                        return apply(op, a, std::get<V>(p.b.column));
                    },
                    p.a.column);
            });
        });
        std::uint64_t values = 0;
        std::uint64_t set_bits = 0;
        std::uint64_t bytes = 0;
        std::visit(
            [&](const auto& v) {
                values = v.size();
                set_bits = popcount(v);
                if (o->output.empty()) {  // the size the file would have
                    std::vector<std::byte> file;
                    save(v, file);
                    bytes = file.size();
                }
            },
            result);
        if (!o->output.empty()) bytes = save_packed(o->output, result);
        if (o->json) {
            nlohmann::json j = {{"operation", name}, {"files", {o->a, o->b}}, {"type", type_name(result)},
                                {"values", values},  {"set_bits", set_bits},   {"result_bytes", bytes},
                                {"seconds", seconds}};
            if (!o->output.empty()) j["output"] = o->output;
            print_json(j);
        } else if (!global.quiet) {
            std::printf("%s %s %s: %llu %s values, %llu bits set, %s compressed%s%s\n", o->a.c_str(), name, o->b.c_str(),
                        static_cast<unsigned long long>(values), type_name(result),
                        static_cast<unsigned long long>(set_bits), human_bytes(bytes).c_str(),
                        o->output.empty() ? "" : ", saved to ", o->output.c_str());
        }
    };
}

}  // namespace

command_runner add_and(CLI::App& root, const global_options& global) {
    return add_bitwise(root, global, "and", bit_op::and_, "Bitwise AND of two packed columns");
}
command_runner add_or(CLI::App& root, const global_options& global) {
    return add_bitwise(root, global, "or", bit_op::or_, "Bitwise OR of two packed columns");
}
command_runner add_xor(CLI::App& root, const global_options& global) {
    return add_bitwise(root, global, "xor", bit_op::xor_, "Bitwise XOR of two packed columns");
}

}  // namespace bitplane::cli
