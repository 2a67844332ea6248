#pragma once

namespace bitplane::detail {

/// Where a block decode writes, which picks the untranspose kernel (kernel_table::untranspose
/// or untranspose_in_cache): the avx512 path's zmm kernel is faster into a buffer already in
/// cache but slower into memory not in cache (decode() into the caller's array).
enum class decode_destination : bool {
    memory,  // the caller's array, likely not in cache
    cache,   // a reused buffer, in cache: the iterator's
};

}  // namespace bitplane::detail
