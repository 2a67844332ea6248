// bitplane::bitset_view: a read-only bitset over the bytes of a saved file, read where they
// are (a caller's buffer or a memory-mapped file), validated once when opened.
//
// save_frozen() writes bitset file version 3 (docs/format.md section 5.3): the summary, one
// 16-byte entry per stored block and the payloads exactly as memory holds them. Opening a view
// on such a file checks every rule load_bitset checks, and that every block is stored as
// memory would store it; it then builds the summary words and the entries (16 bytes per stored
// block, 32 per 64 blocks) and borrows the payloads, O(file bytes) once. Every read-only
// operation of bitset then runs through bits() on the file's bytes without copying them:
// contains, rank, select, iteration, to_positions, and the set algebra with owned or viewed
// operands (`view.bits() & other`). Copying bits() into a bitset copies the bytes (the copy
// owns them and may be changed).
//
// A view over any other bitset file (versions 1 and 2, or a version 3 file of another memory
// layout version, or bytes not aligned to 8) loads a copy instead; borrows() tells which.
//
// Lifetime: a view over a span refers to those bytes, which must stay alive and unchanged
// while the view (and any iterator of bits()) lives; a view over a path maps the file
// read-only (POSIX mmap) and unmaps it when destroyed. Moving a view keeps its bytes where
// they are. Thread safety: as a const bitset (concurrent reads are safe).
#pragma once

#include <bitplane/bitset.hpp>

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <vector>

namespace bitplane {

class bitset_view {
public:
    /// An empty set of size 0.
    bitset_view() = default;
    /// A view over `bytes` (a whole bitset file); format_error (with the offset of the field
    /// found wrong) on anything malformed.
    explicit bitset_view(std::span<const std::byte> bytes);
    /// A view over the file at `path`, mapped read-only; io_error when it cannot be opened or
    /// mapped, format_error when malformed.
    explicit bitset_view(const std::filesystem::path& path);

    bitset_view(bitset_view&& other) noexcept;
    bitset_view& operator=(bitset_view&& other) noexcept;
    bitset_view(const bitset_view&) = delete;
    bitset_view& operator=(const bitset_view&) = delete;
    ~bitset_view();

    /// The set, for every read-only operation.
    [[nodiscard]] const bitset& bits() const noexcept { return bits_; }
    /// Whether the payloads are read in place (false: a copy was loaded; see above).
    [[nodiscard]] bool borrows() const noexcept { return borrows_; }
    /// The file's bytes (the caller's span or the mapping).
    [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }

private:
    void open(std::span<const std::byte> bytes);
    void release() noexcept;

    std::span<const std::byte> bytes_;
    void* mapping_ = nullptr;  // from mmap, mapping_bytes_ long
    std::size_t mapping_bytes_ = 0;
    bitset bits_;               // destroyed before the mapping is released
    bool borrows_ = false;
};

/// Appends `set` as a bitset file of version 3, the frozen layout that bitset_view reads in
/// place (load_bitset reads it too). Larger than save()'s version 2 (memory's payloads rather
/// than entropy-coded ones, 16 bytes of entry per stored block). A view reads the result in
/// place when its first byte is at an address that is a multiple of 8 (as std::vector's own
/// storage when `out` was empty).
void save_frozen(const bitset& set, std::vector<std::byte>& out);
void save_frozen(const bitset& set, std::ostream& out);

}  // namespace bitplane
