// The data and a gnuplot script go into a private temporary directory; gnuplot runs as a
// child process (posix_spawnp, no shell, so no quoting of paths through a shell), draws into
// that directory, and the PNG is then copied to its destination atomically.
#include "plot.hpp"

#include "output_file.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace bitplane::cli {

namespace {

// A directory removed with everything in it when the plot is done (or failed).
class temporary_directory {
public:
    temporary_directory() {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/bitplane-plot-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr)
            throw io_error("cannot create a temporary directory for the plot: " + std::string(std::strerror(errno)));
        path_ = pattern;
    }
    ~temporary_directory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    [[nodiscard]] std::string file(const char* name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw io_error("cannot write " + path);
}

bool is_control(char c) noexcept { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }

// gnuplot string literal in single quotes: a quote is written twice, and nothing else is
// special inside one (no backslash escapes, no backquote or macro substitution) except a line
// end, which ends the command: a line feed in the text would let the rest of it run as
// gnuplot commands (`!cmd` is a shell command). Text with control characters is refused here;
// user text goes through printable() first.
std::string quoted(const std::string& s) {
    if (std::any_of(s.begin(), s.end(), is_control))
        throw io_error("cannot plot: a path of the plot holds a control character");
    std::string out = "'";
    for (const char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

// User text (a file name in the title) with every control character shown as '?'.
std::string printable(std::string s) {
    std::replace_if(s.begin(), s.end(), is_control, '?');
    return s;
}

std::string script(const std::string& title, const temporary_directory& dir) {
    std::ostringstream g;
    g << "set terminal pngcairo size 1500,640 font 'sans,10'\n"
      << "set output " << quoted(dir.file("plot.png")) << "\n"
      << "set multiplot layout 1,2 title " << quoted(printable(title)) << "\n"
      // Heat map: agreement of planes i and j in percent.
      << "set title 'Plane similarity: % of values where planes i and j agree (0 complement, 50 unrelated, 100 equal)'\n"
      << "set xlabel 'plane'\nset ylabel 'plane'\n"
      << "set xrange [-0.5:31.5]\nset yrange [-0.5:31.5]\nset cbrange [0:100]\n"
      << "set xtics 0,4,31\nset ytics 0,4,31\nset size ratio 1\n"
      << "set palette defined (0 '#2c7bb6', 50 '#ffffbf', 100 '#d7191c')\n"
      << "plot " << quoted(dir.file("matrix.dat")) << " matrix with image notitle\n"
      // Bars: per plane, how many blocks store it each way.
      << "set size noratio\nunset colorbox\nset xrange [-0.6:31.6]\nset ytics auto\nset xtics 1 font ',8'\n"
      << "set title 'How each plane of the residuals is stored (blocks)'\nset xlabel 'plane'\n"
      << "set ylabel 'blocks'\nset key outside right top\n"
      << "set style data histograms\nset style histogram rowstacked\n"
      << "set style fill solid 0.85 border -1\nset boxwidth 0.8\nset yrange [0:*]\n"
      << "plot ";
    static constexpr const char* colors[] = {"#dddddd", "#555555", "#9e66ab", "#f4a582", "#d6604d", "#92c5de", "#0571b0"};
    for (std::size_t e = 0; e < plane_encoding_count; ++e) {
        g << (e == 0 ? quoted(dir.file("encodings.dat")) : std::string("''")) << " using " << e + 2
          << (e == 0 ? ":xtic(1)" : "") << " title '" << name_of(static_cast<plane_encoding>(e)) << "' lc rgb '"
          << colors[e] << "'" << (e + 1 < plane_encoding_count ? ", " : "\n");
    }
    g << "unset multiplot\n";
    return g.str();
}

void run_gnuplot(const std::string& script_path) {
    std::string program = "gnuplot";
    std::string argument = script_path;
    char* argv[] = {program.data(), argument.data(), nullptr};
    pid_t pid = 0;
    const int spawned = ::posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ);
    if (spawned != 0)
        throw io_error("cannot run gnuplot (Debian package gnuplot-nox): " + std::string(std::strerror(spawned)));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw io_error("waiting for gnuplot failed: " + std::string(std::strerror(errno)));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw io_error("gnuplot failed (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
}

}  // namespace

void plot_stats(const column_stats& s, const std::string& title, const std::string& png_path) {
    temporary_directory dir;
    std::ostringstream matrix;
    for (std::size_t i = 0; i < plane_count; ++i) {
        for (std::size_t j = 0; j < plane_count; ++j) matrix << (j ? " " : "") << 100.0 * agreement(s, i, j);
        matrix << "\n";
    }
    write_text(dir.file("matrix.dat"), matrix.str());
    std::ostringstream encodings;
    for (std::size_t j = 0; j < plane_count; ++j) {
        encodings << j;
        for (std::size_t e = 0; e < plane_encoding_count; ++e) encodings << " " << s.per_plane[j][e];
        encodings << "\n";
    }
    write_text(dir.file("encodings.dat"), encodings.str());
    write_text(dir.file("plot.gp"), script(title, dir));
    run_gnuplot(dir.file("plot.gp"));

    std::ifstream png(dir.file("plot.png"), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
    if (bytes.empty()) throw io_error("gnuplot wrote no image");
    output_file out(png_path);
    out.write(bytes);
    out.commit();
}

}  // namespace bitplane::cli
