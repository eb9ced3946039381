#pragma once
// Procedural scenes for captioning: a few coloured shapes on a dark background (plain, or noisy
// and textured), each scene with a caption that names them and says where they are relative to
// each other, and with every other caption that would be just as true.

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/sample.h"

namespace saccade {

/// The defaults give scenes64; scenes96Options() gives scenes96. An object's side is
/// size * (fraction + spread * u) pixels with u uniform in [0, 1).
struct SceneOptions {
    int size = 64;  ///< width and height in pixels; requires size >= 32 (64 or more reads best)
    int minObjects = 1, maxObjects = 3;  ///< requires 1 <= minObjects <= maxObjects <= 4
    double smallFraction = 0.16, smallSpread = 0.06;  ///< small objects: 16-22% of the image
    double largeFraction = 0.30, largeSpread = 0.08;  ///< large objects: 30-38% of the image
    /// false: a uniform grey background. true: the grey carries two soft tinted stripe patterns,
    /// and the whole image (objects too) per-pixel noise, so a pixel's colour alone says little
    /// and a coarse view of a small object mixes its colour with the background's.
    bool textured = false;
    std::uint64_t seed = 1;
};

/// The options of the registered scenes96 dataset: 96x96, 2-4 objects, small ones about 1/8 of
/// the image (11-14 px), large ones about 1/3 (29-35 px), textured background.
SceneOptions scenes96Options(std::uint64_t seed = 1);

/// Renders scene `index` of `split`: a pure function of its arguments (the random choices come
/// from splitmix64-mixed seeds and std::mt19937_64, identical on every platform; train and test
/// use different streams). Thread-safe; about 0.01 ms at 64x64 (textured 96x96: about 0.2 ms).
///
/// The image is RGB, size x size, on a dark grey background (see SceneOptions::textured). It
/// holds minObjects to maxObjects objects (fewer only if they cannot be placed, which does not
/// happen with the defaults at 64 pixels), with boxes at least 2 pixels apart. Each object has a
/// shape (circle, square, triangle, cross; all filled, so the pixel at the box centre has the
/// object's colour, up to the noise when textured), a colour (red, green, blue, yellow, white,
/// purple) and a size (small or large, see SceneOptions). No two objects of a scene share
/// size, colour and shape.
///
/// Caption grammar (objects are mentioned in the order of `objects`):
///   caption  := np                                   (one object)
///             | np rel np                            (two)
///             | np rel np ("which" "is" rel np)+     (three or four: object k relates to k + 1)
///   np       := "a" size colour shape                e.g. "a small red circle"
///   rel      := "left" "of" | "right" "of" | "above" | "below"
/// "A left of B" means A's box ends left of where B's begins (likewise for the others). A pair
/// may satisfy two relations (left of and above, say): captionWords picks one at random, and
/// references holds every valid caption: the objects mentioned in any order (the drawn order
/// first), each order with every combination of its pairs' true relations.
///
/// Filled fields: image, objects (box, label = shape index into sceneShapes(), name "small red
/// circle"), captionWords (without "<start>"/"<end>"), wordObject (the object a size, colour or
/// shape word describes; -1 for "a", "left", "of", "which", ...), references (distinct, in
/// lexicographic order of the relation choices, captionWords among them), box and label (those
/// of the first object). distractors stays empty.
Sample renderScene(const SceneOptions& options, Split split, std::int64_t index);

/// A probe scene for boundary sweeps: one object named `name` ("small red circle": a size,
/// colour and shape word), `side` pixels wide, with its box's top-left corner at (x, y), on the
/// background of these options (textured ones seeded by `seed`). Its caption and only reference
/// is "a " + name. Errors: an unknown word, or a box that leaves the image.
Result<Sample> renderSceneProbe(const SceneOptions& options, const std::string& name, int side, int x, int y,
                                std::uint64_t seed);

/// Every word a caption can contain, after "<start>", "<end>", "<pad>", "<unk>" (indices 0..3).
/// The order is fixed, so a word's index can serve as its token id.
std::vector<std::string> sceneVocabulary();

/// Shape names indexed by LabeledBox::label: "circle", "square", "triangle", "cross".
std::vector<std::string> sceneShapes();

}  // namespace saccade
