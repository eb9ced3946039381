#pragma once
// ProceduralDigits: MNIST-like handwritten-ish digits drawn on demand, so the digit experiments
// run without downloading a dataset.

#include <cstdint>
#include <string>
#include <vector>

#include "data/sample.h"

namespace saccade {

/// 28x28 grey digits (white ink on black, like MNIST), classes "0".."9", 60000 train and 10000
/// test images. Each image is a Hershey-font glyph (random face, italic flag, size, stroke
/// width, width scale, slant and rotation within +-15 degrees) bent by an elastic distortion
/// (Simard et al. 2003: a random displacement field smoothed by a Gaussian of sigma about 5
/// MNIST pixels, scaled by alpha in [24, 36]), then fitted into a 20x20 box and placed in the
/// 28x28 frame by its centre of mass, as MNIST was.
///
/// image(split, i) and label(split, i) are pure functions of (split, i, seed): a per-sample seed
/// mixes the three with splitmix64 and feeds a std::mt19937_64, whose output the standard fixes,
/// and uniforms use its top 53 bits, so the random parameters are the same on every platform
/// (the pixels also depend on OpenCV's rasteriser, so compare them within one OpenCV version).
/// Train and test use different streams, so train i and test i differ.
///
/// Labels are balanced exactly: indices 10k .. 10k+9 hold each digit once, in an order shuffled
/// per block of ten from the same seed.
///
/// Holds only its seed: cheap to copy, and every const call is thread-safe.
class ProceduralDigits : public ObjectSource {
public:
    static constexpr int kSize = 28;
    static constexpr std::int64_t kTrainSize = 60'000;
    static constexpr std::int64_t kTestSize = 10'000;

    explicit ProceduralDigits(std::uint64_t seed = 1);

    std::string name() const override;
    std::int64_t size(Split split) const override;
    /// A 28x28 single-channel image. Requires 0 <= index < size(split). Takes 0.05-0.1 ms.
    Image image(Split split, std::int64_t index) const override;
    /// The digit 0..9 drawn in image(split, index). Requires 0 <= index < size(split).
    int label(Split split, std::int64_t index) const override;
    std::vector<std::string> classNames() const override;

    std::uint64_t seed() const { return m_seed; }

private:
    std::uint64_t m_seed;
};

}  // namespace saccade
