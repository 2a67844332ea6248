// `bitplane stats --plot FILE.png`: the plane similarity matrix as a heat map beside a bar
// chart of how each plane is stored, drawn by gnuplot (Debian: gnuplot-nox), which must be on
// PATH. The PNG is written through output_file (complete or not at all).
#pragma once

#include "column_stats.hpp"

#include <string>

namespace bitplane::cli {

/// Draws the plots into `png_path`. io_error when gnuplot cannot be run or fails.
void plot_stats(const column_stats& stats, const std::string& title, const std::string& png_path);

}  // namespace bitplane::cli
