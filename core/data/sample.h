#pragma once
// A generated or loaded sample with its ground truth. Plain types.

#include <string>
#include <vector>

#include "common/box.h"
#include "data/image.h"

namespace saccade {

enum class Split { Train, Test };
inline const char* splitName(Split s) { return s == Split::Train ? "train" : "test"; }

/// An object in a scene with its class (or attribute) and a readable name.
struct LabeledBox {
    Box box;
    int label = -1;
    std::string name;  ///< e.g. "small red circle"
};

struct Sample {
    Image image;
    int label = -1;   ///< class of the target object (-1 when unknown)
    Box box;          ///< the target object's box in pixels
    std::vector<Box> distractors;  ///< clutter pieces' boxes
    // Scenes (captioning):
    std::vector<LabeledBox> objects;        ///< every object in the scene
    std::vector<std::string> captionWords;  ///< the caption, one word per entry
    std::vector<int> wordObject;            ///< per caption word: index into objects, or -1
    /// Scenes: every valid caption (captionWords is one of them).
    std::vector<std::vector<std::string>> references;
};

/// A deterministic source of small grey object images with class labels (Fashion-MNIST items,
/// procedural digits). image(split, i) is always the same image; train and test hold different
/// images. Implementations are thread-safe for const calls.
class ObjectSource {
public:
    virtual ~ObjectSource() = default;
    virtual std::string name() const = 0;
    virtual std::int64_t size(Split split) const = 0;
    /// Requires 0 <= index < size(split).
    virtual Image image(Split split, std::int64_t index) const = 0;
    virtual int label(Split split, std::int64_t index) const = 0;
    virtual std::vector<std::string> classNames() const = 0;
};

}  // namespace saccade
