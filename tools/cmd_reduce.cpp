// bitplane sum IN.bp / bitplane dot A.bp B.bp: exact results (128-bit), printed as decimal
// numbers; in JSON as decimal strings, since they may not fit a 64-bit JSON number.
#include "cli_error.hpp"
#include "commands.hpp"
#include "operands.hpp"
#include "report.hpp"
#include "timer.hpp"

#include <bitplane/reduce.hpp>

#include <cstdio>
#include <memory>
#include <string>

namespace bitplane::cli {

namespace {

struct reduce_options {
    std::string a;
    std::string b;
    bool json = false;
};

std::uint64_t size_of(const any_vector& v) {
    return std::visit([](const auto& c) { return static_cast<std::uint64_t>(c.size()); }, v);
}

void print(const char* name, const std::string& value, nlohmann::json j, bool json) {
    if (json) {
        j[name] = value;
        print_json(j);
    } else {
        std::printf("%s\n", value.c_str());
    }
}

}  // namespace

command_runner add_sum(CLI::App& root, const global_options&) {
    auto o = std::make_shared<reduce_options>();
    CLI::App* c = root.add_subcommand("sum", "Print the exact sum of a packed column");
    c->add_option("INPUT", o->a, "The .bp file")->required();
    c->add_flag("--json", o->json, "Print the result as JSON");
    return [o] {
        const packed_file in = load_packed(o->a);
        std::string value;
        const double seconds = timed([&] { value = std::visit([](const auto& v) { return to_string(sum(v)); }, in.column); });
        print("sum", value,
              {{"file", o->a}, {"type", type_name(in.column)}, {"values", size_of(in.column)}, {"seconds", seconds}},
              o->json);
    };
}

command_runner add_dot(CLI::App& root, const global_options&) {
    auto o = std::make_shared<reduce_options>();
    CLI::App* c = root.add_subcommand("dot", "Print the exact dot product of two packed columns of one size and type");
    c->add_option("A", o->a, "The first .bp file")->required();
    c->add_option("B", o->b, "The second .bp file")->required();
    c->add_flag("--json", o->json, "Print the result as JSON");
    return [o] {
        const operand_pair p = load_pair(o->a, o->b);
        std::string value;
        const double seconds = timed([&] {
            value = about_file(o->a + ", " + o->b, [&] {
                return std::visit(
                    [&](const auto& a) {
                        using V = std::decay_t<decltype(a)>;
                        return to_string(dot(a, std::get<V>(p.b.column)));
                    },
                    p.a.column);
            });
        });
        print("dot", value,
              {{"files", {o->a, o->b}}, {"type", type_name(p.a.column)}, {"values", size_of(p.a.column)},
               {"seconds", seconds}},
              o->json);
    };
}

}  // namespace bitplane::cli
