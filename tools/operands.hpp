// Shared by the operation commands: loading two operands of one type, and predicates given
// as --eq/--ne/--lt/--le/--gt/--ge X or --range LO HI, checked against the column's type.
#pragma once

#include "packed_file.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bitplane::cli {

/// Two .bp files holding the same value type (bad input, exit 2, otherwise; differing sizes
/// are reported by the operation itself as size_error, also exit 2).
struct operand_pair {
    packed_file a;
    packed_file b;
};
[[nodiscard]] operand_pair load_pair(const std::string& a, const std::string& b);

struct predicate {
    enum class kind { eq, ne, lt, le, gt, ge, range } op = kind::eq;
    std::int64_t x = 0;
    std::int64_t hi = 0;  ///< for range: x is lo
    [[nodiscard]] std::string describe() const;
};

/// Adds the predicate options (exactly one required, or at most one when not `required`) to
/// `command`; returns their group.
CLI::Option_group* add_predicate_options(CLI::App& command, predicate& p, std::vector<std::int64_t>& range_storage,
                                         bool required = true);

/// Fills in p from the parsed options.
void settle_predicate(const CLI::App& command, predicate& p, const std::vector<std::int64_t>& range_storage);

/// x as a T, or a usage failure saying the value is outside T's range (in `file`).
template <class T>
T checked_value(std::int64_t x, const std::string& file);

}  // namespace bitplane::cli
