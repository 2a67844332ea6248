#include "gnuplot_script.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <sstream>

namespace bitplane::cli {

namespace {

bool is_control(char c) noexcept { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }

}  // namespace

std::string gnuplot_quoted(std::string_view s) {
    if (std::any_of(s.begin(), s.end(), is_control))
        throw io_error("cannot plot: a path of the plot holds a control character");
    std::string out = "'";
    for (const char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string gnuplot_printable(std::string_view s) {
    std::string out(s);
    std::replace_if(out.begin(), out.end(), is_control, '?');
    return out;
}

std::string stats_plot_script(std::string_view title, std::string_view directory,
                              std::span<const std::string_view> series) {
    const auto file = [&](const char* name) { return gnuplot_quoted(std::string(directory) + "/" + name); };
    std::ostringstream g;
    g << "set terminal pngcairo size 1500,640 font 'sans,10'\n"
      << "set output " << file("plot.png") << "\n"
      << "set multiplot layout 1,2 title " << gnuplot_quoted(gnuplot_printable(title)) << "\n"
      // Heat map: agreement of planes i and j in percent.
      << "set title 'Plane similarity: % of values where planes i and j agree (0 complement, 50 unrelated, 100 equal)'\n"
      << "set xlabel 'plane'\nset ylabel 'plane'\n"
      << "set xrange [-0.5:31.5]\nset yrange [-0.5:31.5]\nset cbrange [0:100]\n"
      << "set xtics 0,4,31\nset ytics 0,4,31\nset size ratio 1\n"
      << "set palette defined (0 '#2c7bb6', 50 '#ffffbf', 100 '#d7191c')\n"
      << "plot " << file("matrix.dat") << " matrix with image notitle\n"
      // Bars: per plane, how many blocks store it each way.
      << "set size noratio\nunset colorbox\nset xrange [-0.6:31.6]\nset ytics auto\nset xtics 1 font ',8'\n"
      << "set title 'How each plane of the residuals is stored (blocks)'\nset xlabel 'plane'\n"
      << "set ylabel 'blocks'\nset key outside right top\n"
      << "set style data histograms\nset style histogram rowstacked\n"
      << "set style fill solid 0.85 border -1\nset boxwidth 0.8\nset yrange [0:*]\n"
      << "plot ";
    static constexpr const char* colors[] = {"#dddddd", "#555555", "#9e66ab", "#f4a582", "#d6604d", "#92c5de", "#0571b0"};
    constexpr std::size_t color_count = std::size(colors);
    for (std::size_t e = 0; e < series.size(); ++e) {
        g << (e == 0 ? file("encodings.dat") : std::string("''")) << " using " << e + 2 << (e == 0 ? ":xtic(1)" : "")
          << " title " << gnuplot_quoted(gnuplot_printable(series[e])) << " lc rgb '" << colors[e % color_count] << "'"
          << (e + 1 < series.size() ? ", " : "\n");
    }
    if (series.empty()) g << "NaN notitle\n";
    g << "unset multiplot\n";
    return g.str();
}

}  // namespace bitplane::cli
