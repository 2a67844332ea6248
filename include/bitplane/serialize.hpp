// Saving and loading vectors: a little-endian, checksummed, versioned file format laid out
// so that it can be memory-mapped and read in place (docs/format.md gives every byte).
//
// load() treats its input as untrusted: every size is checked against the bytes available
// before anything is allocated, every block is validated, and the XXH3 checksum must match.
// Anything wrong throws format_error with the offset of the problem; nothing partial is
// returned.
#pragma once

#include <bitplane/vector.hpp>

#include <cstddef>
#include <iosfwd>
#include <span>
#include <vector>

namespace bitplane {

/// Appends the encoded vector to `out`. Seals nothing in `v` (a pending write-back block is
/// encoded on the fly).
template <column_value T> void save(const vector<T>& v, std::vector<std::byte>& out);
/// Writes the encoded vector to a stream; throws io_error when the stream fails.
template <column_value T> void save(const vector<T>& v, std::ostream& out);

/// Loads a vector from bytes that hold exactly one saved vector of value type T.
template <column_value T> vector<T> load(std::span<const std::byte> bytes);
/// Loads a vector from a stream (reads the header, then exactly the bytes it announces).
template <column_value T> vector<T> load(std::istream& in);

}  // namespace bitplane
