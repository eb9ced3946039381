#pragma once
// What changed in LibTorch's C++ interface between 1.13 (Debian 12) and 2.x (Debian 13's 2.6,
// PyTorch's own wheels), in one place: the rest of the sources write one version-free form.
// Engine header: includes LibTorch.

#include <cstddef>
#include <type_traits>
#include <utility>

#include <c10/core/Allocator.h>
#include <torch/csrc/jit/passes/tensorexpr_fuser.h>
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

/// TorchScript's TensorExpr fuser: 2.x fuses on the CPU too, compiling each fused group with LLVM
/// while the first calls run. With Debian 13's LibTorch 2.6 that compile ran for minutes on the
/// bundled 4-layer ViT (1.13 does not fuse on the CPU). Saccade runs imported models unfused.
inline void runTorchScriptUnfused() { torch::jit::setTensorExprFuserEnabled(false); }

namespace detail {
template <typename Options, typename = void>
struct HasUseLibUV : std::false_type {};
template <typename Options>
struct HasUseLibUV<Options, std::void_t<decltype(std::declval<Options&>().useLibUV)>> : std::true_type {};
}  // namespace detail

/// c10d's TCPStore: 2.x gained a libuv server (the default since 2.4), which Debian 13's LibTorch
/// is built without ("use_libuv was requested but PyTorch was build without libuv support"). The
/// classic server, 1.13's only one, is asked for everywhere, so every build behaves alike.
template <typename StoreOptions>
void useClassicTcpStore(StoreOptions& options) {
    if constexpr (detail::HasUseLibUV<StoreOptions>::value) options.useLibUV = false;
}

}  // namespace saccade::compat
