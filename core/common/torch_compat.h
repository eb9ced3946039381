#pragma once
// What changed in LibTorch's C++ interface between 1.13 (Debian 12) and 2.x (Debian 13's 2.6,
// PyTorch's own wheels), in one place: the rest of the sources write one version-free form.
// Engine header: includes LibTorch.

#include <cstddef>

#include <c10/core/Allocator.h>
#include <torch/version.h>

/// True when the LibTorch being compiled against is at least MAJOR.MINOR.
#define SACCADE_TORCH_AT_LEAST(major, minor) \
    (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace saccade::compat {

/// A c10::Allocator written once: 2.3 made allocate() non-const and added copy_data(), which 1.13
/// lacks. A subclass implements allocateBytes().
class AllocatorBase : public c10::Allocator {
public:
#if SACCADE_TORCH_AT_LEAST(2, 3)
    c10::DataPtr allocate(std::size_t n) final { return allocateBytes(n); }
    void copy_data(void* dest, const void* src, std::size_t count) const final { default_copy_data(dest, src, count); }
#else
    c10::DataPtr allocate(std::size_t n) const final { return allocateBytes(n); }
#endif

protected:
    virtual c10::DataPtr allocateBytes(std::size_t n) const = 0;
};

}  // namespace saccade::compat
