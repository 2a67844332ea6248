// The data and a gnuplot script go into a private temporary directory; gnuplot runs as a
// child process (posix_spawnp, no shell, so no quoting of paths through a shell), draws into
// that directory, and the PNG is then copied to its destination atomically.
#include "plot.hpp"

#include "gnuplot_script.hpp"
#include "output_file.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <array>
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
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw io_error("cannot write " + path);
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
    std::array<std::string_view, plane_encoding_count> series;
    for (std::size_t e = 0; e < plane_encoding_count; ++e) series[e] = name_of(static_cast<plane_encoding>(e));
    write_text(dir.file("plot.gp"), stats_plot_script(title, dir.path(), series));
    run_gnuplot(dir.file("plot.gp"));

    std::ifstream png(dir.file("plot.png"), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
    if (bytes.empty()) throw io_error("gnuplot wrote no image");
    output_file out(png_path);
    out.write(bytes);
    out.commit();
}

}  // namespace bitplane::cli
