// vector_writer against save(): for every shape and standard size, however the values are cut
// into append calls and whatever the thread count, the streamed file must be byte-for-byte
// the file save() writes for a vector of the same values, and load back to those values.
// Plus the writer's own rules: finished writers refuse work, stream failures are io_error,
// and the memory it holds follows the encoded size, not the input size.
#include "test_support.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/stream_writer.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bytes = std::vector<std::byte>;

struct thread_count_guard {
    ~thread_count_guard() { bitplane::set_thread_count(0); }
};

template <class T>
bytes saved(const std::vector<T>& values) {
    bytes out;
    bitplane::save(bitplane::vector<T>(std::span<const T>(values)), out);
    return out;
}

// Streams `values` in pieces of `piece` values (the last one shorter).
template <class T>
bytes streamed(const std::vector<T>& values, std::size_t piece) {
    bitplane::vector_writer<T> writer;
    for (std::size_t at = 0; at < values.size(); at += piece)
        writer.append(std::span<const T>(values).subspan(at, std::min(piece, values.size() - at)));
    EXPECT_EQ(writer.size(), values.size());
    bytes out;
    const std::uint64_t total = writer.finish([&](std::span<const std::byte> b) { out.insert(out.end(), b.begin(), b.end()); });
    EXPECT_EQ(total, out.size());
    return out;
}

template <class T>
void check_all_shapes() {
    for (const shape& s : quick_mode() ? representative_shapes() : basic_shapes()) {
        for (const std::size_t count : standard_sizes()) {
            SCOPED_TRACE(case_name(s, count));
            const std::vector<T> values = make_typed<T>(s, count, case_seed("stream_writer", count));
            const bytes expected = saved(values);
            // Whole, one block, odd pieces that straddle blocks, single values (small sizes only).
            for (const std::size_t piece : {std::max<std::size_t>(count, 1), block_values, std::size_t{777}, std::size_t{1}}) {
                if (piece == 1 && count > 3 * block_values) continue;
                SCOPED_TRACE("piece " + std::to_string(piece));
                const bytes got = streamed(values, piece);
                ASSERT_EQ(got, expected);
                EXPECT_EQ(bitplane::load<T>(got).to_std_vector(), values);
            }
        }
    }
}

TEST(StreamWriter, SameBytesAsSaveUnsigned) { check_all_shapes<std::uint32_t>(); }
TEST(StreamWriter, SameBytesAsSaveSigned) { check_all_shapes<std::int32_t>(); }

// The parallel path (many blocks in one append) and the serial one write the same bytes.
TEST(StreamWriter, SameBytesForEveryThreadCount) {
    thread_count_guard guard;
    const auto values = make_typed<std::uint32_t>(of(shape_kind::mixed), 3000 * block_values + 5, case_seed("threads"));
    const bytes expected = saved(values);
    for (const std::size_t threads : {1, 2, 3}) {
        bitplane::set_thread_count(threads);
        SCOPED_TRACE(threads);
        EXPECT_EQ(streamed(values, values.size()), expected);
        EXPECT_EQ(streamed(values, 1500 * block_values + 3), expected);
    }
}

TEST(StreamWriter, EmptyWriterWritesAnEmptyVector) {
    EXPECT_EQ(streamed(std::vector<std::int32_t>{}, 1), saved(std::vector<std::int32_t>{}));
}

TEST(StreamWriter, FinishedWriterRefusesWork) {
    bitplane::vector_writer<std::uint32_t> writer;
    const std::uint32_t one = 1;
    writer.append({&one, 1});
    std::ostringstream out;
    EXPECT_GT(writer.finish(out), 64u);
    EXPECT_THROW(writer.append({&one, 1}), bitplane::argument_error);
    EXPECT_THROW((void)writer.finish(out), bitplane::argument_error);
}

TEST(StreamWriter, FailingStreamIsIoError) {
    bitplane::vector_writer<std::uint32_t> writer;
    const std::uint32_t one = 1;
    writer.append({&one, 1});
    std::ostringstream out;
    out.setstate(std::ios::badbit);
    EXPECT_THROW((void)writer.finish(out), bitplane::io_error);
}

// What the writer holds tracks the encoded bytes: a constant column of 8M values (32 MB as
// values) encodes to a few bytes per block, and the writer must not keep the values.
TEST(StreamWriter, MemoryFollowsEncodedSize) {
    bitplane::vector_writer<std::uint32_t> writer;
    const std::vector<std::uint32_t> chunk(block_values * 64, 7u);
    for (int i = 0; i < 64; ++i) writer.append(chunk);
    EXPECT_EQ(writer.size(), 64u * chunk.size());
    EXPECT_LT(writer.encoded_bytes(), 64u * 64u * 64u);
    // One 4 MiB chunk of encoded bytes, the offsets table (8 bytes a block), a block of tail,
    // and the parallel encoder's buffers: 64 batches, each with room for one worst-case block
    // beyond its few bytes (at most twice that with the growth of std::vector).
    EXPECT_LT(writer.memory_bytes(), (std::size_t{4} << 20) + 64u * 64u * 16u + 4 * block_values + 1024 +
                                         64u * 2 * bitplane::codec::max_block_bytes);
}

}  // namespace
