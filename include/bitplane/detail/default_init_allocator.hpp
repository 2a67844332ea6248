// An allocator for std::vector whose value-less construct() default-initializes: resize()
// then leaves new bytes of trivial types unwritten instead of zeroing them, for buffers that
// are written right after they grow (the arena of encoded blocks). Not part of the public API.
#pragma once

#include <memory>
#include <new>
#include <utility>

namespace bitplane::detail {

template <class T>
struct default_init_allocator : std::allocator<T> {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = default_init_allocator<U>;
    };

    default_init_allocator() noexcept = default;
    template <class U>
    default_init_allocator(const default_init_allocator<U>&) noexcept {}

    template <class U>
    void construct(U* p) noexcept(noexcept(::new (static_cast<void*>(p)) U)) {
        ::new (static_cast<void*>(p)) U;  // default-initialized: no zeroing for trivial types
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

template <class T, class U>
bool operator==(const default_init_allocator<T>&, const default_init_allocator<U>&) noexcept {
    return true;
}

}  // namespace bitplane::detail
