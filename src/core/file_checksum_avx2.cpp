// XXH3 built for AVX2: the checksum of every bitplane file (file_header.hpp) hashes whole
// payloads, and xxHash picks its vector code at compile time, so the library's baseline build
// would hash with SSE2. This unit is compiled with -mavx2 and called only where the AVX2
// path is active; the hash is the same whichever unit computes it.
#include "core/file_header.hpp"

#if !defined(__AVX2__)
#error "file_checksum_avx2.cpp must be compiled with -mavx2"
#endif

namespace bitplane::detail::file {

void update_avx2(XXH3_state_t* state, const void* data, std::size_t size) noexcept {
    XXH3_64bits_update(state, data, size);
}

}  // namespace bitplane::detail::file
