// docs/api.md, "Files": writing a vector file from values that arrive in pieces (as
// `bitplane pack` does), then loading it; the test suite runs this program.
#include <bitplane/bitplane.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <vector>

int main() {
    bitplane::vector_writer<std::int32_t> writer;
    std::vector<std::int32_t> piece(100000);
    for (int round = 0; round < 10; ++round) {
        for (std::size_t i = 0; i < piece.size(); ++i) piece[i] = static_cast<std::int32_t>(i % 201) - 100;
        writer.append(piece);  // whole blocks are encoded at once; the values are not kept
    }
    std::ostringstream file;  // a std::ofstream in real use
    const std::uint64_t bytes = writer.finish(file);

    const std::string saved = file.str();
    const auto column = bitplane::load<std::int32_t>(std::as_bytes(std::span(saved.data(), saved.size())));
    return bytes == saved.size() && column.size() == 1'000'000 && column[123'456] == 123'456 % 100'000 % 201 - 100 ? 0 : 1;
}
