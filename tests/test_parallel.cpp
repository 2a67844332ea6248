// The thread-count knob (bitplane/parallel.hpp) and the parallel bulk paths of the vector:
// construction from a span and append (blocks encoded in parallel), decode (blocks decoded in
// parallel), and vector_core::append_encoded_blocks. Every thread count must give the same
// encoded bytes (equal save() output) and the same values.
#include "test_support.hpp"
#include "core/vector_access.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/vector.hpp>

#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

template <class T>
bitplane::detail::vector_core& core_of(bitplane::vector<T>& v) {
    return bitplane::detail::vector_access::core(v);
}

using namespace bitplane_test;
using bitplane::block_values;

template <class T>
using bvec = bitplane::vector<T>;

struct thread_count_guard {
    ~thread_count_guard() { bitplane::set_thread_count(0); }
};

template <class T>
std::vector<std::byte> saved(const bvec<T>& v) {
    std::vector<std::byte> bytes;
    bitplane::save(v, bytes);
    return bytes;
}

constexpr std::array thread_counts{std::size_t{1}, std::size_t{2}, std::size_t{4}};

// Many blocks (well past the parallel thresholds) and a tail.
std::size_t large_count() { return quick_mode() ? 70 * block_values + 11 : 300 * block_values + 11; }

TEST(ParallelKnob, DefaultIsEveryHardwareThreadAndZeroRestoresIt) {
    const thread_count_guard guard;
    const std::size_t hardware = std::max<std::size_t>(1, std::thread::hardware_concurrency());
    bitplane::set_thread_count(0);
    EXPECT_EQ(bitplane::thread_count(), hardware);
    bitplane::set_thread_count(3);
    EXPECT_EQ(bitplane::thread_count(), 3u);
    bitplane::set_thread_count(1);
    EXPECT_EQ(bitplane::thread_count(), 1u);
    bitplane::set_thread_count(0);
    EXPECT_EQ(bitplane::thread_count(), hardware);
}

TEST(ParallelKnob, ParallelForUsesThreadsOnlyWhenAllowed) {
    const thread_count_guard guard;
    RecordProperty("parallel_available", bitplane::parallel_available() ? "yes" : "no");
    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        bitplane::set_thread_count(threads);
        std::mutex m;
        std::set<std::thread::id> ids;
        std::vector<int> seen(64, 0);
        bitplane::detail::parallel_for(seen.size(), 1, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) {
                ++seen[i];
                std::this_thread::sleep_for(std::chrono::milliseconds(3));  // slow enough to be shared
            }
            const std::lock_guard lock(m);
            ids.insert(std::this_thread::get_id());
        });
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 64) << "every item exactly once";
        if (threads == 1 || !bitplane::parallel_available()) {
            EXPECT_EQ(ids.size(), 1u);
            EXPECT_EQ(*ids.begin(), std::this_thread::get_id());
        } else {
            EXPECT_GE(ids.size(), 2u) << "192 ms of work stayed on one thread";
            EXPECT_LE(ids.size(), threads);
        }
    }
}

TEST(ParallelKnob, ExceptionsFromWorkersReachTheCaller) {
    const thread_count_guard guard;
    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
        bitplane::set_thread_count(threads);
        EXPECT_THROW(bitplane::detail::parallel_for(1000, 8,
                                                    [](std::size_t first, std::size_t last) {
                                                        if (first <= 700 && 700 < last) throw std::runtime_error("x");
                                                    }),
                     std::runtime_error);
    }
}

template <class T>
class ParallelTest : public ::testing::Test {};
using value_types = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(ParallelTest, value_types);

TYPED_TEST(ParallelTest, ConstructionFromASpanGivesTheSameBytesForEveryThreadCount) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const thread_count_guard guard;
    const std::size_t n = large_count();
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(s.name());
        const std::vector<T> ref = make_typed<T>(s, n, case_seed("parallel-build", s.id()));
        // The serial reference: push_back, one block at a time.
        bitplane::set_thread_count(1);
        bvec<T> pushed;
        for (const T x : ref) pushed.push_back(x);
        const std::vector<std::byte> expected = saved(pushed);
        for (const std::size_t threads : thread_counts) {
            SCOPED_TRACE("threads " + std::to_string(threads));
            bitplane::set_thread_count(threads);
            const bvec<T> built{std::span<const T>(ref)};
            EXPECT_EQ(saved(built), expected);
            EXPECT_TRUE(same_values(ref, built.to_std_vector()));
            // append() after a partial tail, in uneven pieces.
            bvec<T> appended;
            std::size_t at = 0;
            for (const std::size_t piece : {std::size_t{5}, 40 * block_values + 7, std::size_t{2043}, n}) {
                const std::size_t take = std::min(piece, n - at);
                appended.append(std::span<const T>(ref).subspan(at, take));
                at += take;
            }
            EXPECT_EQ(saved(appended), expected);
            EXPECT_EQ(appended.size(), n);
        }
    }
}

TYPED_TEST(ParallelTest, DecodeGivesTheSameValuesForEveryThreadCount) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const thread_count_guard guard;
    const std::size_t n = large_count();
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(s.name());
        std::vector<T> ref = make_typed<T>(s, n, case_seed("parallel-decode", s.id()));
        bvec<T> v{std::span<const T>(ref)};
        v.set(33 * block_values + 9, T{12345});  // decode must see the pending write-back block
        ref[33 * block_values + 9] = T{12345};
        for (const std::size_t threads : thread_counts) {
            SCOPED_TRACE("threads " + std::to_string(threads));
            bitplane::set_thread_count(threads);
            EXPECT_TRUE(same_values(ref, v.to_std_vector()));
            // Unaligned ranges: partial first block, many whole blocks, partial last block.
            for (const auto& [first, count] : {std::pair<std::size_t, std::size_t>{1000, n - 1777},
                                               {block_values, 40 * block_values}, {5, 17 * block_values - 3},
                                               {n - 3 * block_values - 1, 3 * block_values + 1}}) {
                std::vector<T> out(count, T{0x5A});
                v.decode(first, out);
                EXPECT_TRUE(std::equal(out.begin(), out.end(), ref.begin() + static_cast<std::ptrdiff_t>(first)))
                    << "decode(" << first << ", " << count << ")";
            }
        }
    }
}

TYPED_TEST(ParallelTest, ConcurrentReadersWithParallelDecode) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const thread_count_guard guard;
    bitplane::set_thread_count(2);
    const std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), large_count(), case_seed("parallel-readers"));
    const bvec<T> v{std::span<const T>(ref)};
    std::atomic<int> failures{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r)
        readers.emplace_back([&] {
            for (int k = 0; k < 3; ++k)
                if (v.to_std_vector() != ref) ++failures;
        });
    for (std::thread& t : readers) t.join();
    EXPECT_EQ(failures.load(), 0);
}

// ---- vector_core::append_encoded_block(s) --------------------------------------------------------

TYPED_TEST(ParallelTest, AppendEncodedBlocksKeepsOrderAndChecksPreconditions) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const thread_count_guard guard;
    constexpr bool is_signed = std::is_signed_v<T>;
    const std::size_t blocks = 100;
    const std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), blocks * block_values, case_seed("encoded"));
    const auto bits = [&](std::size_t b) {
        return std::span<const std::uint32_t>(reinterpret_cast<const std::uint32_t*>(ref.data()) + b * block_values,
                                              block_values);
    };
    const bvec<T> expected{std::span<const T>(ref)};
    for (const std::size_t threads : thread_counts) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        bitplane::set_thread_count(threads);
        bvec<T> v;
        core_of(v).append_encoded_blocks(blocks, [&](std::size_t b, std::span<std::byte> out) {
            return bitplane::codec::encode_block(bits(b), is_signed, out);
        });
        EXPECT_EQ(v.size(), ref.size());
        EXPECT_EQ(saved(v), saved(expected));
        EXPECT_TRUE(same_values(ref, v.to_std_vector()));
        // One more block, singly; then a tail, after which encoded blocks are refused.
        std::array<std::byte, bitplane::codec::max_block_bytes> buffer{};
        const std::size_t size = bitplane::codec::encode_block(bits(3), is_signed, buffer);
        core_of(v).append_encoded_block(std::span<const std::byte>(buffer).first(size));
        EXPECT_EQ(v.size(), ref.size() + block_values);
        EXPECT_EQ(v[ref.size() + 5], ref[3 * block_values + 5]);
        // The vector's own sealed blocks appended again: their bytes lie in the arena that the
        // append may move (the copy must read them where they are after the move).
        const std::size_t before = v.size();
        for (std::size_t b = 0; b < blocks; ++b)
            core_of(v).append_encoded_block(v.core().sealed_block(b, buffer));
        ASSERT_EQ(v.size(), before + blocks * block_values);
        for (std::size_t b = 0; b < blocks; ++b)
            for (const std::size_t i : {std::size_t{0}, std::size_t{777}, block_values - 1})
                ASSERT_EQ(v[before + b * block_values + i], ref[b * block_values + i]) << "block " << b << " again";
        v.push_back(T{1});
        EXPECT_THROW(core_of(v).append_encoded_block(std::span<const std::byte>(buffer).first(size)),
                     bitplane::size_error);
        EXPECT_THROW(core_of(v).append_encoded_blocks(1, [&](std::size_t, std::span<std::byte>) { return size; }),
                     bitplane::size_error);
        bvec<T> w;
        EXPECT_THROW(core_of(w).append_encoded_block({}), bitplane::size_error);
        // A writer that reports an impossible size, on the serial and the parallel path.
        for (const std::size_t count : {std::size_t{1}, blocks})
            EXPECT_THROW(core_of(w).append_encoded_blocks(
                             count, [](std::size_t, std::span<std::byte>) { return bitplane::codec::max_block_bytes + 1; }),
                         bitplane::size_error);
        EXPECT_EQ(w.size(), 0u);
        // A writer that throws: the exception reaches the caller.
        EXPECT_THROW(core_of(w).append_encoded_blocks(blocks,
                                                    [&](std::size_t b, std::span<std::byte> out) -> std::size_t {
                                                        if (b == 57) throw std::runtime_error("writer");
                                                        return bitplane::codec::encode_block(bits(b), is_signed, out);
                                                    }),
                     std::runtime_error);
    }
}

}  // namespace
