// bitplane count / find IN.bp PREDICATE: how many values, and which positions, satisfy it.
// Both run the library's plane scans (count_eq and count_range without building a bitset).
// find on a packed DNA file takes a PATTERN instead of a predicate (dna_commands.hpp).
#include "cli_error.hpp"
#include "commands.hpp"
#include "dna_commands.hpp"
#include "operands.hpp"
#include "report.hpp"
#include "timer.hpp"

#include <bitplane/scan.hpp>

#include <charconv>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace bitplane::cli {

namespace {

struct scan_options {
    std::string input;
    predicate where;
    std::vector<std::int64_t> range;
    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
    bool json = false;
    std::string pattern;  ///< find on a packed DNA file
    CLI::Option_group* predicate_group = nullptr;
};

template <class T>
bitset positions(const vector<T>& v, const predicate& p, const std::string& file) {
    const T x = checked_value<T>(p.x, file);
    switch (p.op) {
        case predicate::kind::eq: return find_eq(v, x);
        case predicate::kind::ne: return find_ne(v, x);
        case predicate::kind::lt: return find_lt(v, x);
        case predicate::kind::le: return find_le(v, x);
        case predicate::kind::gt: return find_gt(v, x);
        case predicate::kind::ge: return find_ge(v, x);
        case predicate::kind::range: return find_range(v, x, checked_value<T>(p.hi, file));
    }
    return bitset(v.size());
}

template <class T>
std::uint64_t matches(const vector<T>& v, const predicate& p, const std::string& file) {
    if (p.op == predicate::kind::eq) return count_eq(v, checked_value<T>(p.x, file));
    if (p.op == predicate::kind::range) return count_range(v, checked_value<T>(p.x, file), checked_value<T>(p.hi, file));
    return positions(v, p, file).count();
}

CLI::App* add_scan(CLI::App& root, const char* name, const char* help, const std::shared_ptr<scan_options>& o,
                   bool dna_pattern = false) {
    CLI::App* c = root.add_subcommand(name, help);
    c->add_option("INPUT", o->input, "The .bp file")->required();
    if (dna_pattern)
        c->add_option("PATTERN", o->pattern,
                      "For a packed DNA file: the letters to find (IUPAC codes match their bases; case ignored)");
    o->predicate_group = add_predicate_options(*c, o->where, o->range, !dna_pattern);
    c->add_flag("--json", o->json, "Print the result as JSON");
    return c;
}

}  // namespace

command_runner add_count(CLI::App& root, const global_options&) {
    auto o = std::make_shared<scan_options>();
    CLI::App* c = add_scan(root, "count", "Print how many values satisfy a predicate", o);
    return [o, c] {
        settle_predicate(*c, o->where, o->range);
        const packed_file in = load_packed(o->input);
        std::uint64_t n = 0;
        const double seconds =
            timed([&] { n = std::visit([&](const auto& v) { return matches(v, o->where, o->input); }, in.column); });
        if (o->json)
            print_json({{"file", o->input}, {"predicate", o->where.describe()}, {"count", n}, {"seconds", seconds}});
        else
            std::printf("%llu\n", static_cast<unsigned long long>(n));
    };
}

command_runner add_find(CLI::App& root, const global_options&) {
    auto o = std::make_shared<scan_options>();
    CLI::App* c = add_scan(root, "find",
                           "Print the positions (0-based) of the values that satisfy a predicate, or of a DNA pattern", o,
                           true);
    c->add_option("--limit", o->limit, "Print at most N positions (the count is still exact)")->option_text("N");
    c->footer("On a packed DNA file (pack --dna): find IN.bp PATTERN prints \"record<TAB>position\" for every\n"
              "occurrence inside a record (overlapping ones included; position 0-based in the record).");
    return [o, c] {
        const bool has_predicate = o->predicate_group->count_all() > 0;
        if (!has_predicate && o->pattern.empty())
            throw usage_failure("give a predicate (--eq, --ne, --lt, --le, --gt, --ge or --range) or, for a packed DNA "
                                "file, a PATTERN");
        if (has_predicate && !o->pattern.empty()) throw usage_failure("give a predicate or a PATTERN, not both");
        any_packed loaded = load_any(o->input);
        if (const auto* dna = std::get_if<packed_dna>(&loaded)) {
            if (has_predicate) throw usage_failure(o->input + " is a packed DNA file: give a PATTERN, not a predicate");
            return print_dna_find(*dna, o->pattern, o->limit, o->json);
        }
        if (!o->pattern.empty())
            throw usage_failure("PATTERN: " + o->input + " is a column of integers; PATTERN is for packed DNA files");
        settle_predicate(*c, o->where, o->range);
        const packed_file& in = std::get<packed_file>(loaded);
        bitset found;
        const double seconds =
            timed([&] { found = std::visit([&](const auto& v) { return positions(v, o->where, o->input); }, in.column); });
        if (o->json) {
            nlohmann::json list = nlohmann::json::array();
            std::uint64_t shown = 0;
            for (auto it = found.begin(); it != found.end() && shown < o->limit; ++it, ++shown) list.push_back(*it);
            print_json({{"file", o->input},
                        {"predicate", o->where.describe()},
                        {"count", found.count()},
                        {"positions", list},
                        {"truncated", shown < found.count()},
                        {"seconds", seconds}});
            return;
        }
        // One position per line, formatted into a buffer: millions of lines cost no more than
        // the write itself.
        std::vector<char> buffer(1 << 16);
        std::size_t used = 0;
        std::uint64_t shown = 0;
        for (auto it = found.begin(); it != found.end() && shown < o->limit; ++it, ++shown) {
            if (buffer.size() - used < 24) {
                write_stdout(std::string_view(buffer.data(), used));
                used = 0;
            }
            char* end = std::to_chars(buffer.data() + used, buffer.data() + buffer.size(), *it).ptr;
            *end++ = '\n';
            used = static_cast<std::size_t>(end - buffer.data());
        }
        write_stdout(std::string_view(buffer.data(), used));
    };
}

}  // namespace bitplane::cli
