#pragma once
// Caption metrics for models that describe a scene in words: the scores of a rule (BLEU from
// metrics/bleu.h, exact match) and an accumulator of attention correctness per word class (size, colour, shape,
// relation) for the scene vocabulary. Pure C++: no tensors, no images.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/shard.h"
#include "common/words.h"
#include "data/sample.h"
#include "metrics/bleu.h"

namespace saccade {

/// The classes of words in scene captions.
enum class WordClass { Size, Colour, Shape, Relation, Other };

/// "size", "colour", "shape", "relation" or "other".
std::string wordClassName(WordClass wordClass);

/// The word classes whose words name objects: size, colour, shape.
std::vector<std::string> objectWordClasses();

/// The class of a scene word (case-sensitive, lower case): small, large are sizes; red, green,
/// blue, yellow, white, purple colours; circle, square, triangle, cross shapes; left, right, of,
/// above, below relations; anything else Other.
WordClass sceneWordClass(const std::string& word);

/// Attention correctness accumulated per word class (keyed by name, e.g. wordClassName()): for
/// each generated word, the attention mass on the object the word is about (a fraction in
/// [0, 1]) and whether the attention hit it.
struct AttentionCorrectness {
    struct Entry {
        ExactSum massSum;        ///< summed attention mass (order-independent: shards add up exactly)
        std::int64_t hits = 0;   ///< words whose attention hit the object
        std::int64_t words = 0;  ///< words counted
    };
    std::map<std::string, Entry> byClass;

    /// Counts one word of class `wordClass` with attention `mass` on its object and `hit`.
    void add(const std::string& wordClass, double mass, bool hit);
    /// Mean mass over the class's words; 0 when it has none.
    double mass(const std::string& wordClass) const;
    /// Fraction of the class's words that hit, in [0, 1]; 0 when it has none.
    double hitRate(const std::string& wordClass) const;
    /// The sums over `classes` (names not seen count as empty).
    Entry total(const std::vector<std::string>& classes) const;
};

/// Per object size ("small", "large": the first word of a scene object's name), how many objects
/// the scenes held and how many of them their caption named in full ("SIZE COLOUR SHAPE", all
/// three right): whether a captioner overlooks the small ones.
struct ObjectNaming {
    struct Count {
        std::int64_t named = 0, objects = 0;
    };
    std::map<std::string, Count> bySize;
    void add(const std::string& size, bool named);
    /// Counts one scene: each object (by its name, "small red circle") under its size, named when
    /// `caption` holds its whole name as consecutive words. Objects whose name starts with no size
    /// are not counted.
    void addScene(const std::vector<std::string>& caption, const std::vector<LabeledBox>& objects);
};

/// A scene object's size class from its name: its first word when that is a size ("small red
/// circle": "small"), else "".
std::string objectNameSize(const std::string& name);

/// The key of AttentionCorrectness under which the object words naming an object of `size` are
/// also counted: "small objects", "large objects".
std::string objectSizeKey(const std::string& size);

/// Figures of one caption rule over a set of images, all from counts and order-independent sums,
/// so the shards of an evaluation merge into exactly the unsharded figures.
struct CaptionScores {
    std::string rule;
    BleuScores bleu;
    std::int64_t images = 0, exact = 0;
    double exactMatch = 0;
    AttentionCorrectness correctness;  ///< per word class, and per object size (objectSizeKey); mass and hit rate
    ObjectNaming naming;               ///< per object size: objects named in full
};
/// The figures from their counts: BLEU from `bleuCounts` (bleuFromCounts), the exact-match rate.
CaptionScores captionScores(const std::string& rule, const BleuScores& bleuCounts, std::int64_t images,
                            std::int64_t exact, const AttentionCorrectness& correctness,
                            const ObjectNaming& naming = {});

}  // namespace saccade
