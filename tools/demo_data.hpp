// The built-in data of `bitplane demo`: generated columns of typical shapes, each a pure
// function of (count, seed). The genome of issue #5 joins this table as a dataset of its own
// kind when DNA support lands (see pack_dna.cpp for the pack side of that seam).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace bitplane::cli {

struct demo_dataset {
    std::string_view name;         ///< file stem: <dir>/<name>.u32 / .i32 and <name>.bp
    std::string_view description;  ///< one line for the report
    bool is_signed;
    std::vector<std::uint32_t> (*generate)(std::size_t count, std::mt19937_64& random);
};

/// Every dataset, in report order.
[[nodiscard]] std::span<const demo_dataset> demo_datasets();

}  // namespace bitplane::cli
