// Saving and loading vectors: a little-endian, checksummed, versioned file format laid out
// so that it can be memory-mapped and read in place (docs/format.md gives every byte).
//
// save() passes the blocks through zstd (save_options::zstd_level) unless told not to.
// load() treats its input as untrusted: every size is checked against the bytes available
// before anything is allocated (a zstd frame's content size included, bounded by the file's
// size), every block is validated, and the XXH3 checksum must match.
// Anything wrong throws format_error with the offset of the problem; nothing partial is
// returned.
#pragma once

#include <bitplane/vector.hpp>

#include <cstddef>
#include <iosfwd>
#include <span>
#include <vector>

namespace bitplane {

/// How save() and vector_writer write a vector file.
struct save_options {
    /// The zstd level of the entropy stage over the file's blocks and tables (docs/format.md
    /// section 3, version 3): 1 to 22 (higher: smaller and slower to write; loading costs
    /// about the same at every level), or 0 for none (version 2, which can be read in place).
    /// A file is written as version 3 only when the zstd frame makes it smaller and stays
    /// within the loader's bounds (section 4); otherwise as version 2. Levels outside [0, 22]
    /// throw argument_error.
    int zstd_level = default_zstd_level;
    /// The default, by measurement (bench_corpus --levels): sizes of level 3, 3-20x faster to save.
    static constexpr int default_zstd_level = 1;
    /// With a zstd stage, also try the values form (docs/format.md section 3, version 4: the
    /// values as byte lanes or dictionary codes in a zstd frame, which shows zstd repetition
    /// that bit-planes hide) and keep it when the file is smaller. Loading such a file
    /// re-encodes its values (about the cost of building the vector); saving costs one decode
    /// and a second zstd pass. vector_writer never writes it (its files equal save()'s with
    /// value_form = false).
    bool value_form = true;
};

/// Appends the encoded vector to `out`. Seals nothing in `v` (a pending write-back block is
/// encoded on the fly).
template <column_value T> void save(const vector<T>& v, std::vector<std::byte>& out, const save_options& options = {});
/// Writes the encoded vector to a stream; throws io_error when the stream fails.
template <column_value T> void save(const vector<T>& v, std::ostream& out, const save_options& options = {});

/// Loads a vector from bytes that hold exactly one saved vector of value type T.
template <column_value T> vector<T> load(std::span<const std::byte> bytes);
/// Loads a vector from a stream (reads the header, then exactly the bytes it announces).
template <column_value T> vector<T> load(std::istream& in);

}  // namespace bitplane
