#pragma once
// Procedural scenes for captioning: a few coloured shapes on a plain dark background, each
// scene with a caption that names them and says where they are relative to each other.

#include <cstdint>
#include <string>
#include <vector>

#include "data/sample.h"

namespace saccade {

struct SceneOptions {
    int size = 64;  ///< width and height in pixels; requires size >= 32 (64 or more reads best)
    int minObjects = 1, maxObjects = 3;  ///< requires 1 <= minObjects <= maxObjects <= 3
    std::uint64_t seed = 1;
};

/// Renders scene `index` of `split`: a pure function of its arguments (the random choices come
/// from splitmix64-mixed seeds and std::mt19937_64, identical on every platform; train and test
/// use different streams). Thread-safe; about 0.01 ms at 64x64.
///
/// The image is RGB, size x size, on a uniform dark grey background. It holds minObjects to
/// maxObjects objects (fewer only if they cannot be placed, which does not happen at 64 pixels),
/// with boxes at least 2 pixels apart. Each object has a shape (circle, square, triangle,
/// cross; all filled, so the pixel at the box centre has the object's colour), a colour (red,
/// green, blue, yellow, white, purple) and a size (small: about 1/5 of the image, large: about
/// 1/3).
///
/// Caption grammar (objects are mentioned in the order of `objects`):
///   caption  := np                                   (one object)
///             | np rel np                            (two)
///             | np rel np "which" "is" rel np        (three: the second relates to the third)
///   np       := "a" size colour shape                e.g. "a small red circle"
///   rel      := "left" "of" | "right" "of" | "above" | "below"
/// "A left of B" means A's box ends left of where B's begins (likewise for the others); of the
/// relations true of a pair, one is picked at random.
///
/// Filled fields: image, objects (box, label = shape index into sceneShapes(), name "small red
/// circle"), captionWords (without "<start>"/"<end>"), wordObject (the object a size, colour or
/// shape word describes; -1 for "a", "left", "of", "which", ...), box and label (those of the
/// first object). distractors stays empty.
Sample renderScene(const SceneOptions& options, Split split, std::int64_t index);

/// Every word a caption can contain, after "<start>", "<end>", "<pad>", "<unk>" (indices 0..3).
/// The order is fixed, so a word's index can serve as its token id.
std::vector<std::string> sceneVocabulary();

/// Shape names indexed by LabeledBox::label: "circle", "square", "triangle", "cross".
std::vector<std::string> sceneShapes();

}  // namespace saccade
