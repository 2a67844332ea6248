// vector_writer against save(): for every shape and standard size, and for columns of repeated
// blocks, however the values are cut into append calls and whatever the thread count, the
// streamed file must be byte-for-byte the file save() writes for a vector of the same values
// with the same save_options (the kept form: the zstd stage, version 3, by default; the
// placed form: version 2, save()'s bytes with zstd_level 0), and load back to those values.
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
#include <mutex>
#include <random>
#include <sstream>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bytes = std::vector<std::byte>;

struct thread_count_guard {
    ~thread_count_guard() { bitplane::set_thread_count(0); }
};

const bitplane::save_options v2_options{.zstd_level = 0};

template <class T>
bytes saved(const std::vector<T>& values, bitplane::save_options options = {}) {
    options.value_form = false;  // the writer never writes version 4 (it never holds the values)
    bytes out;
    bitplane::save(bitplane::vector<T>(std::span<const T>(values)), out, options);
    return out;
}

// Streams `values` in pieces of `piece` values (the last one shorter).
template <class T>
bytes streamed(const std::vector<T>& values, std::size_t piece, const bitplane::save_options& options = {}) {
    bitplane::vector_writer<T> writer(options);
    for (std::size_t at = 0; at < values.size(); at += piece)
        writer.append(std::span<const T>(values).subspan(at, std::min(piece, values.size() - at)));
    EXPECT_EQ(writer.size(), values.size());
    bytes out;
    const std::uint64_t total = writer.finish([&](std::span<const std::byte> b) { out.insert(out.end(), b.begin(), b.end()); });
    EXPECT_EQ(total, out.size());
    return out;
}

// A placed_output in memory that checks what the writer does with it: reads only of bytes
// written before, and (optionally) a failure after some writes.
class memory_output : public bitplane::placed_output {
public:
    bytes file;
    std::vector<bool> written;
    int fail_after = -1;  // writes that succeed before one throws; -1: never
    void write_at(std::uint64_t offset, std::span<const std::byte> b) override {
        if (fail_after == 0) throw bitplane::io_error("test output: disk full");
        if (fail_after > 0) --fail_after;
        if (file.size() < offset + b.size()) {
            file.resize(offset + b.size());
            written.resize(offset + b.size());
        }
        std::copy(b.begin(), b.end(), file.begin() + static_cast<std::ptrdiff_t>(offset));
        std::fill_n(written.begin() + static_cast<std::ptrdiff_t>(offset), b.size(), true);
    }
    void read_at(std::uint64_t offset, std::span<std::byte> b) override {
        ASSERT_LE(offset + b.size(), file.size());
        for (std::size_t i = 0; i < b.size(); ++i) ASSERT_TRUE(written[offset + i]) << "read of unwritten byte " << offset + i;
        std::copy_n(file.begin() + static_cast<std::ptrdiff_t>(offset), b.size(), b.begin());
    }
};

// memory_output made safe for reads beside writes (a lock around both), so that finish()
// hashes while it writes the last blocks, as it does with a file.
class concurrent_memory_output : public memory_output {
public:
    std::mutex lock;
    void write_at(std::uint64_t offset, std::span<const std::byte> b) override {
        const std::lock_guard<std::mutex> hold(lock);
        memory_output::write_at(offset, b);
    }
    void read_at(std::uint64_t offset, std::span<std::byte> b) override {
        const std::lock_guard<std::mutex> hold(lock);
        memory_output::read_at(offset, b);
    }
    [[nodiscard]] bool reads_while_writing() const noexcept override { return true; }
};

// The same values through a writer that knows their count and writes blocks in place.
template <class T, class Output = memory_output>
bytes placed(const std::vector<T>& values, std::size_t piece) {
    Output out;
    bitplane::vector_writer<T> writer(values.size(), out);
    for (std::size_t at = 0; at < values.size(); at += piece)
        writer.append(std::span<const T>(values).subspan(at, std::min(piece, values.size() - at)));
    const std::uint64_t total = writer.finish();
    EXPECT_EQ(total, out.file.size());
    return out.file;
}

template <class T>
void check_all_shapes() {
    for (const shape& s : quick_mode() ? representative_shapes() : basic_shapes()) {
        for (const std::size_t count : standard_sizes()) {
            SCOPED_TRACE(case_name(s, count));
            const std::vector<T> values = make_typed<T>(s, count, case_seed("stream_writer", count));
            const bytes expected = saved(values);
            const bytes expected_v2 = saved(values, v2_options);
            // Whole, one block, odd pieces that straddle blocks, single values (small sizes only).
            for (const std::size_t piece : {std::max<std::size_t>(count, 1), block_values, std::size_t{777}, std::size_t{1}}) {
                if (piece == 1 && count > 3 * block_values) continue;
                SCOPED_TRACE("piece " + std::to_string(piece));
                const bytes got = streamed(values, piece);
                ASSERT_EQ(got, expected);
                EXPECT_EQ(bitplane::load<T>(got).to_std_vector(), values);
                ASSERT_EQ(placed(values, piece), expected_v2);
                ASSERT_EQ(streamed(values, piece, v2_options), expected_v2);
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
    const bytes expected = saved(values), expected_v2 = saved(values, v2_options);
    for (const std::size_t threads : {1, 2, 3}) {
        bitplane::set_thread_count(threads);
        SCOPED_TRACE(threads);
        EXPECT_EQ(streamed(values, values.size()), expected);
        EXPECT_EQ(streamed(values, 1500 * block_values + 3), expected);
        EXPECT_EQ(placed(values, values.size()), expected_v2);
        EXPECT_EQ(placed(values, 1500 * block_values + 3), expected_v2);
    }
}

// finish() of the placed form writes the last window and the tail while it hashes, reading
// back what is in the file and the rest from memory: the split between the two must not
// matter, whether the values end at a window's end (windows are 256 to 1024 blocks), a
// block after, or mid-block.
TEST(StreamWriter, PlacedFinishSplitsHashAtEveryEnd) {
    thread_count_guard guard;
    bitplane::set_thread_count(2);
    const auto values = make_typed<std::uint32_t>(of(shape_kind::mixed), 1100 * block_values, case_seed("placed_ends"));
    for (const std::size_t count : {std::size_t{256} * block_values, std::size_t{512} * block_values,
                                    std::size_t{513} * block_values, std::size_t{512} * block_values + 7,
                                    std::size_t{1024} * block_values - 1, std::size_t{31} * block_values + 1,
                                    std::size_t{32} * block_values}) {
        SCOPED_TRACE(count);
        const std::vector<std::uint32_t> prefix(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count));
        const bytes expected = saved(prefix, v2_options);
        EXPECT_EQ(placed(prefix, prefix.size()), expected);
        EXPECT_EQ(placed(prefix, 300 * block_values + 11), expected);
        EXPECT_EQ((placed<std::uint32_t, concurrent_memory_output>(prefix, prefix.size())), expected);
        EXPECT_EQ((placed<std::uint32_t, concurrent_memory_output>(prefix, 300 * block_values + 11)), expected);
    }
}

// Repeated blocks (docs/format.md section 3, version 2): each distinct block is stored once,
// whether its earlier copy is the block before, in the same window, in a window still to be
// written (placed form), in the output or in the kept payload; the bytes equal save()'s for
// every cut into appends, both forms and every thread count, and repeats shrink the file.
TEST(StreamWriter, RepeatedBlocksSameBytesAsSave) {
    thread_count_guard guard;
    std::vector<std::vector<std::uint32_t>> pool;
    for (std::size_t k = 0; k < 6; ++k)
        pool.push_back(make_typed<std::uint32_t>(k < 3 ? uniform(static_cast<int>(4 + 5 * k)) : of(shape_kind::runs),
                                                 block_values, case_seed("writer-pool", k)));
    pool.push_back(std::vector<std::uint32_t>(block_values, 7u));
    std::mt19937_64 rng(case_seed("writer-repeats"));
    std::vector<std::uint32_t> values;
    for (std::size_t b = 0; b < 2500; ++b) {
        const auto& block = pool[rng() % 8 < 4 ? 6 : rng() % pool.size()];  // runs of the constant too
        values.insert(values.end(), block.begin(), block.end());
    }
    values.insert(values.end(), pool[2].begin(), pool[2].begin() + 1000);
    const bytes expected = saved(values), expected_v2 = saved(values, v2_options);
    const bytes unique = saved(make_typed<std::uint32_t>(uniform(14), values.size(), case_seed("writer-unique")), v2_options);
    EXPECT_LT(expected_v2.size() * 20, unique.size()) << "repeats did not shrink the file";
    EXPECT_LT(expected.size(), expected_v2.size()) << "the zstd stage did not shrink the file";
    EXPECT_EQ(bitplane::load<std::uint32_t>(expected).to_std_vector(), values);
    for (const std::size_t threads : {1, 2, 3}) {
        bitplane::set_thread_count(threads);
        SCOPED_TRACE(threads);
        for (const std::size_t piece : {values.size(), 700 * block_values + 3, std::size_t{5000}}) {
            SCOPED_TRACE(piece);
            EXPECT_EQ(streamed(values, piece), expected);
            EXPECT_EQ(placed(values, piece), expected_v2);
            EXPECT_EQ((placed<std::uint32_t, concurrent_memory_output>(values, piece)), expected_v2);
        }
    }
    // One large block repeated: the block map is padded to the bound on bytes of blocks per
    // file byte (docs/format.md section 4), in the writer as in save().
    std::vector<std::uint32_t> repeated;
    for (std::size_t b = 0; b < 6000; ++b) repeated.insert(repeated.end(), pool[2].begin(), pool[2].end());
    // With the zstd stage the padding would be squeezed out, below the bound: both keep
    // version 2.
    const bytes padded = saved(repeated);
    EXPECT_EQ(padded[8], std::byte{2});
    EXPECT_EQ(padded, saved(repeated, v2_options));
    EXPECT_GT(padded.size(), 2 * (64 + bitplane::codec::max_block_bytes / 4)) << "no padding: the case tests nothing";
    EXPECT_EQ(streamed(repeated, repeated.size()), padded);
    EXPECT_EQ(placed(repeated, 777 * block_values + 1), padded);
}

// The kept form at every zstd level writes save()'s bytes for the same options (the frame
// does not depend on how the blocks are cut into the writer's chunks: more than one 4 MiB
// chunk here); levels outside [0, 22] are refused when the writer is made.
TEST(StreamWriter, ZstdLevelsSameBytesAsSave) {
    // 2500 distinct blocks of 16-bit values (about 10 MB encoded), each one of 40 blocks with
    // one value changed: zstd finds them again, the block map does not.
    std::vector<std::vector<std::uint32_t>> pool;
    for (std::size_t k = 0; k < 40; ++k) pool.push_back(make_typed<std::uint32_t>(uniform(16), block_values, case_seed("levels-pool", k)));
    std::vector<std::uint32_t> values;
    for (std::size_t b = 0; b < 2500; ++b) {
        values.insert(values.end(), pool[b % pool.size()].begin(), pool[b % pool.size()].end());
        values[values.size() - 1 - b % 1000] ^= static_cast<std::uint32_t>(b + 1);
    }
    values.resize(values.size() - 2039);
    for (const int level : {0, 1, 3, 9}) {
        SCOPED_TRACE(level);
        const bitplane::save_options options{.zstd_level = level};
        const bytes expected = saved(values, options);
        EXPECT_EQ(static_cast<int>(expected[8]), level == 0 ? 2 : 3);
        EXPECT_EQ(streamed(values, values.size(), options), expected);
        EXPECT_EQ(streamed(values, 300 * block_values + 1, options), expected);
        EXPECT_EQ(bitplane::load<std::uint32_t>(expected).to_std_vector(), values);
    }
    for (const int level : {-1, 23})
        EXPECT_THROW(bitplane::vector_writer<std::uint32_t>(bitplane::save_options{.zstd_level = level}), bitplane::argument_error);
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

TEST(StreamWriter, PlacedWriterHoldsItsCount) {
    const std::vector<std::uint32_t> five{1, 2, 3, 4, 5};
    {  // more values than announced: refused before anything is written
        memory_output out;
        bitplane::vector_writer<std::uint32_t> writer(4, out);
        EXPECT_THROW(writer.append(five), bitplane::argument_error);
        writer.append(std::span(five).first(4));
        EXPECT_THROW(writer.append(std::span(five).first(1)), bitplane::argument_error);
        EXPECT_EQ(writer.finish(), placed(std::vector<std::uint32_t>(five.begin(), five.begin() + 4), 4).size());
    }
    {  // fewer: finish refuses to write an incomplete file
        memory_output out;
        bitplane::vector_writer<std::uint32_t> writer(6, out);
        writer.append(five);
        EXPECT_THROW((void)writer.finish(), bitplane::argument_error);
    }
    {  // each form finishes its own way
        memory_output out;
        bitplane::vector_writer<std::uint32_t> with_output(5, out);
        with_output.append(five);
        std::ostringstream stream;
        EXPECT_THROW((void)with_output.finish(stream), bitplane::argument_error);
        bitplane::vector_writer<std::uint32_t> without;
        without.append(five);
        EXPECT_THROW((void)without.finish(), bitplane::argument_error);
    }
    EXPECT_EQ(placed(std::vector<std::int32_t>{}, 1), saved(std::vector<std::int32_t>{}));
}

TEST(StreamWriter, PlacedOutputFailurePropagates) {
    const auto values = make_typed<std::uint32_t>(of(shape_kind::mixed), 40 * block_values, case_seed("placed_fail"));
    for (const int fail_after : {0, 1, 3}) {
        memory_output out;
        out.fail_after = fail_after;
        bitplane::vector_writer<std::uint32_t> writer(values.size(), out);
        EXPECT_THROW(
            {
                for (std::size_t at = 0; at < values.size(); at += block_values)
                    writer.append(std::span(values).subspan(at, block_values));
                (void)writer.finish();
            },
            bitplane::io_error);
    }
}

// A placed writer holds no encoded blocks: incompressible values (32 MB) leave it with the
// sizes table, the dedupe index (offset and hash entry, under 64 bytes a stored block) and the
// encoder's buffers only.
TEST(StreamWriter, PlacedWriterHoldsNoBlocks) {
    memory_output out;
    const auto chunk = make_typed<std::uint32_t>(of(shape_kind::mixed), block_values * 64, case_seed("placed_memory"));
    bitplane::vector_writer<std::uint32_t> writer(64 * chunk.size(), out);
    for (int i = 0; i < 64; ++i) writer.append(chunk);
    EXPECT_LT(writer.memory_bytes(), 64u * 64u * 64u + 4 * block_values + 1024 + 64u * 2 * bitplane::codec::max_block_bytes);
    const std::uint64_t total = writer.finish();
    EXPECT_EQ(total, out.file.size());
    EXPECT_EQ(bitplane::load<std::uint32_t>(out.file).size(), 64 * chunk.size());
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
    // One 4 MiB chunk of encoded bytes, the sizes table and dedupe index (one stored block), a block of tail,
    // and the parallel encoder's buffers: 64 batches, each with room for one worst-case block
    // beyond its few bytes (at most twice that with the growth of std::vector).
    EXPECT_LT(writer.memory_bytes(), (std::size_t{4} << 20) + 64u * 64u * 16u + 4 * block_values + 1024 +
                                         64u * 2 * bitplane::codec::max_block_bytes);
}

}  // namespace
