#include "operands.hpp"

#include "cli_error.hpp"

#include <limits>

namespace bitplane::cli {

operand_pair load_pair(const std::string& a, const std::string& b) {
    operand_pair p{load_packed(a), load_packed(b)};
    if (p.a.column.index() != p.b.column.index())
        throw failure(exit_bad_input, a + " holds " + type_name(p.a.column) + " values, " + b + " holds " +
                                          type_name(p.b.column) + " values: the operands must have one type");
    return p;
}

std::string predicate::describe() const {
    switch (op) {
        case kind::eq: return "== " + std::to_string(x);
        case kind::ne: return "!= " + std::to_string(x);
        case kind::lt: return "< " + std::to_string(x);
        case kind::le: return "<= " + std::to_string(x);
        case kind::gt: return "> " + std::to_string(x);
        case kind::ge: return ">= " + std::to_string(x);
        case kind::range: return "in [" + std::to_string(x) + ", " + std::to_string(hi) + "]";
    }
    return "";
}

namespace {
struct flag {
    const char* name;
    predicate::kind kind;
    const char* help;
};
constexpr flag flags[] = {
    {"--eq", predicate::kind::eq, "Values equal to X"},     {"--ne", predicate::kind::ne, "Values not equal to X"},
    {"--lt", predicate::kind::lt, "Values less than X"},    {"--le", predicate::kind::le, "Values at most X"},
    {"--gt", predicate::kind::gt, "Values greater than X"}, {"--ge", predicate::kind::ge, "Values at least X"},
};
}  // namespace

CLI::Option_group* add_predicate_options(CLI::App& command, predicate& p, std::vector<std::int64_t>& range_storage,
                                         bool required) {
    CLI::Option_group* group = command.add_option_group("predicate", "Which values (exactly one)");
    for (const flag& f : flags) group->add_option(f.name, p.x, f.help)->option_text("X");
    group->add_option("--range", range_storage, "Values in [LO, HI], both included")->expected(2)->option_text("LO HI");
    if (required) group->require_option(1);
    else group->require_option(0, 1);
    return group;
}

void settle_predicate(const CLI::App& command, predicate& p, const std::vector<std::int64_t>& range_storage) {
    for (const flag& f : flags)
        if (command.count(f.name) > 0) p.op = f.kind;
    if (!range_storage.empty()) {
        p.op = predicate::kind::range;
        p.x = range_storage.at(0);
        p.hi = range_storage.at(1);
    }
}

template <class T>
T checked_value(std::int64_t x, const std::string& file) {
    if (x < std::numeric_limits<T>::min() || x > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        throw usage_failure(std::to_string(x) + " is outside the " + (std::is_signed_v<T> ? "int32" : "uint32") +
                            " range of " + file + "'s values");
    return static_cast<T>(x);
}

template std::uint32_t checked_value<std::uint32_t>(std::int64_t, const std::string&);
template std::int32_t checked_value<std::int32_t>(std::int64_t, const std::string&);

}  // namespace bitplane::cli
