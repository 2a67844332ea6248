// Write access to a bitplane::vector's storage, for the library's own code that builds vectors
// from encoded blocks (load, DNA packing, operations' results, tests): vector_core's adopt and
// append_encoded_block(s) trust their bytes, so this header is not installed and
// vector::core() hands users a read-only view.
#pragma once

#include <bitplane/vector.hpp>

namespace bitplane::detail {

struct vector_access {
    template <column_value T>
    [[nodiscard]] static vector_core& core(vector<T>& v) noexcept {
        return v.core_;
    }
};

}  // namespace bitplane::detail
