// Scene references (every true caption of a scene), the harder scenes96 set, and a pin on
// scenes64: its images and captions must not move when scenes gain options.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/procedural_scenes.h"

using namespace saccade;

namespace {

using Words = std::vector<std::string>;

// FNV-1a over the pixels and the caption words (each ended by a 0 byte).
std::uint64_t fnv1a(std::uint64_t h, const void* data, size_t n) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
        h ^= bytes[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
constexpr std::uint64_t kFnvBasis = 0xcbf29ce484222325ull;
std::uint64_t sceneHash(const Sample& s, std::uint64_t h = kFnvBasis) {
    h = fnv1a(h, s.image.pixels.data(), s.image.pixels.size());
    for (const auto& w : s.captionWords) h = fnv1a(h, w.c_str(), w.size() + 1);
    return h;
}

// The relations true of boxes a and b, as their first caption word, read from the geometry.
std::vector<std::string> relationsOf(const Box& a, const Box& b) {
    std::vector<std::string> out;
    if (a.x + a.w <= b.x) out.push_back("left");
    if (b.x + b.w <= a.x) out.push_back("right");
    if (a.y + a.h <= b.y) out.push_back("above");
    if (b.y + b.h <= a.y) out.push_back("below");
    return out;
}

// Reads `words` as np rel np ("which" "is" rel np)* over the scene's objects in any order,
// checking every noun phrase names an object not named before and every relation holds of the
// boxes of the objects it joins. Returns the objects in order of mention, then the relations.
std::vector<std::string> parseCaption(const Words& words, const Sample& s) {
    std::vector<std::string> parsed;
    std::vector<std::string> relations;
    size_t at = 0;
    int previous = -1;
    std::set<int> named;
    auto next = [&]() -> std::string { return at < words.size() ? words[at++] : "<none>"; };
    for (size_t k = 0; k < s.objects.size(); ++k) {
        if (k >= 2) {
            EXPECT_EQ(next(), "which");
            EXPECT_EQ(next(), "is");
        }
        std::string rel;
        if (k >= 1) {
            rel = next();
            if (rel == "left" || rel == "right") {
                EXPECT_EQ(next(), "of");
            }
        }
        EXPECT_EQ(next(), "a");
        std::string name = next();  // one call per statement: operands are unsequenced
        name += " " + next();
        name += " " + next();
        int object = -1;
        for (size_t o = 0; o < s.objects.size(); ++o)
            if (s.objects[o].name == name) object = int(o);
        EXPECT_GE(object, 0) << "'" << name << "' names no object";
        EXPECT_TRUE(named.insert(object).second) << "'" << name << "' named twice";
        if (object < 0) return parsed;
        if (k >= 1) {
            const auto truths = relationsOf(s.objects[size_t(previous)].box, s.objects[size_t(object)].box);
            EXPECT_NE(std::find(truths.begin(), truths.end(), rel), truths.end())
                << "'" << rel << "' is not true of objects " << previous << " and " << object;
            relations.push_back(rel);
        }
        parsed.push_back(std::to_string(object));
        previous = object;
    }
    EXPECT_EQ(at, words.size()) << "trailing words";
    parsed.insert(parsed.end(), relations.begin(), relations.end());
    return parsed;
}

// Checks the references of one scene; returns their count.
size_t checkReferences(const Sample& s) {
    const auto& refs = s.references;
    EXPECT_FALSE(refs.empty());
    EXPECT_NE(std::find(refs.begin(), refs.end(), s.captionWords), refs.end())
        << "captionWords is not among the references";
    EXPECT_EQ(std::set<Words>(refs.begin(), refs.end()).size(), refs.size()) << "duplicates";
    // Every order of mention, each with every combination of true relations.
    std::vector<size_t> order(s.objects.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    size_t expected = 0;
    do {
        size_t combinations = 1;
        for (size_t k = 1; k < order.size(); ++k)
            combinations *= relationsOf(s.objects[order[k - 1]].box, s.objects[order[k]].box).size();
        expected += combinations;
    } while (std::next_permutation(order.begin(), order.end()));
    EXPECT_EQ(refs.size(), expected);
    std::set<std::vector<std::string>> combinations;
    for (const auto& r : refs) combinations.insert(parseCaption(r, s));
    EXPECT_EQ(combinations.size(), refs.size());
    return refs.size();
}

bool isColour(const std::string& name, double r, double g, double b) {
    if (name == "red") return r > 150 && g < 100 && b < 100;
    if (name == "green") return g > 140 && r < 110 && b < 110;
    if (name == "blue") return b > 180 && r < 110 && g < 140;
    if (name == "yellow") return r > 180 && g > 170 && b < 100;
    if (name == "white") return r > 200 && g > 200 && b > 200;
    if (name == "purple") return r > 110 && b > 160 && g < 110;
    ADD_FAILURE() << "unknown colour " << name;
    return false;
}

bool inBox(const Box& b, int x, int y) {
    return x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h;
}

}  // namespace

TEST(SceneReferences, EveryTrueCaptionOfEveryScene) {
    const SceneOptions sets[] = {SceneOptions{}, scenes96Options(), scenes96Options(7)};
    for (const auto& options : sets) {
        int multiple = 0, eight = 0;
        for (std::int64_t i = 0; i < 400; ++i) {
            const Split split = i % 2 ? Split::Test : Split::Train;
            const Sample s = renderScene(options, split, i);
            SCOPED_TRACE("size " + std::to_string(options.size) + " seed " +
                         std::to_string(options.seed) + " scene " + std::to_string(i));
            ASSERT_EQ(s.wordObject.size(), s.captionWords.size());
            const size_t n = checkReferences(s);
            if (HasFailure()) return;  // one scene's report is enough
            size_t orders = 1;
            for (size_t k = 2; k <= s.objects.size(); ++k) orders *= k;
            multiple += n > orders;       // some pair holds two relations
            eight += n >= 4 * orders;     // several do
        }
        // Pairs related two ways are common (a quarter of scenes64, more with more objects), so
        // the references matter.
        EXPECT_GT(multiple, 60);
        if (options.textured) {
            EXPECT_GT(eight, 0);
        }
    }
}

TEST(SceneReferences, HandPickedScene) {
    // scenes96 train 6: the first and third pairs hold two relations each, the second one. The
    // drawn order comes first; the other 23 orders of mention follow.
    const Sample s = renderScene(scenes96Options(), Split::Train, 6);
    ASSERT_EQ(s.objects.size(), 4u);
    EXPECT_EQ(relationsOf(s.objects[0].box, s.objects[1].box), (Words{"right", "above"}));
    EXPECT_EQ(relationsOf(s.objects[1].box, s.objects[2].box), (Words{"left"}));
    EXPECT_EQ(relationsOf(s.objects[2].box, s.objects[3].box), (Words{"right", "below"}));
    const std::string a = "a large white cross ", b = " a small white triangle which is left of ";
    const std::string c = "a large yellow cross which is ", d = " a small green circle";
    const std::vector<std::string> expected = {
        a + "right of" + b + c + "right of" + d,
        a + "right of" + b + c + "below" + d,
        a + "above" + b + c + "right of" + d,
        a + "above" + b + c + "below" + d,
    };
    std::vector<std::string> got;
    for (const auto& r : std::vector<Words>(s.references.begin(), s.references.begin() + 4)) {
        std::string line;
        for (const auto& w : r) line += (line.empty() ? "" : " ") + w;
        got.push_back(line);
    }
    EXPECT_EQ(got, expected);
    EXPECT_NE(std::find(s.references.begin(), s.references.end(), s.captionWords),
              s.references.end());
}

TEST(SceneReferences, OneObjectHasOneReference) {
    SceneOptions options;
    options.minObjects = options.maxObjects = 1;
    const Sample s = renderScene(options, Split::Test, 3);
    ASSERT_EQ(s.objects.size(), 1u);
    EXPECT_EQ(s.references, std::vector<Words>{s.captionWords});
}

TEST(Scenes96, HarderScenes) {
    const SceneOptions options = scenes96Options();
    const auto vocab = sceneVocabulary();
    const std::set<std::string> known(vocab.begin(), vocab.end());
    int counts[5] = {}, small = 0;
    for (std::int64_t i = 0; i < 300; ++i) {
        const Sample s = renderScene(options, i % 2 ? Split::Test : Split::Train, i);
        SCOPED_TRACE("scene " + std::to_string(i));
        ASSERT_EQ(s.image.width, 96);
        ASSERT_EQ(s.image.height, 96);
        ASSERT_EQ(s.image.channels, 3);
        ASSERT_EQ(s.image.pixels.size(), 96u * 96u * 3u);
        const int n = int(s.objects.size());
        ASSERT_GE(n, 2);
        ASSERT_LE(n, 4);
        ++counts[n];
        for (const auto& w : s.captionWords) EXPECT_TRUE(known.count(w)) << w;
        for (int k = 0; k < n; ++k) {
            const LabeledBox& o = s.objects[k];
            EXPECT_EQ(o.box.w, o.box.h);
            EXPECT_GE(o.box.x, 0);
            EXPECT_GE(o.box.y, 0);
            EXPECT_LE(o.box.x + o.box.w, 96);
            EXPECT_LE(o.box.y + o.box.h, 96);
            if (o.name.rfind("small", 0) == 0) {
                EXPECT_LE(o.box.w, 96 / 8 + 2) << o.name;
                EXPECT_GE(o.box.w, 96 / 8 - 2) << o.name;
                ++small;
            } else {
                EXPECT_GE(o.box.w, 96 * 0.28) << o.name;
                EXPECT_LE(o.box.w, 96 * 0.38) << o.name;
            }
            // The mean of the 3 x 3 pixels at the centre has the named colour despite the noise.
            const int cx = int(o.box.x + o.box.w / 2), cy = int(o.box.y + o.box.h / 2);
            double mean[3] = {};
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    for (int c = 0; c < 3; ++c) mean[c] += s.image.at(cx + dx, cy + dy, c) / 9.0;
            const std::string colour =
                o.name.substr(o.name.find(' ') + 1, o.name.rfind(' ') - o.name.find(' ') - 1);
            EXPECT_TRUE(isColour(colour, mean[0], mean[1], mean[2]))
                << o.name << " has centre colour " << mean[0] << "," << mean[1] << "," << mean[2];
            for (int j = 0; j < k; ++j) {
                // Boxes stay at least 2 pixels apart along some axis, so relations read clearly.
                const Box& p = s.objects[j].box;
                EXPECT_TRUE(o.box.x + o.box.w + 2 <= p.x || p.x + p.w + 2 <= o.box.x ||
                            o.box.y + o.box.h + 2 <= p.y || p.y + p.h + 2 <= o.box.y);
                EXPECT_NE(o.name, s.objects[j].name);
            }
        }
        // The background is neither uniform nor the same grey everywhere.
        double sum = 0, sumSq = 0;
        int count = 0;
        for (int y = 0; y < 96; ++y)
            for (int x = 0; x < 96; ++x) {
                if (std::any_of(s.objects.begin(), s.objects.end(),
                                [&](const LabeledBox& o) { return inBox(o.box, x, y); }))
                    continue;
                for (int c = 0; c < 3; ++c) {
                    const double v = s.image.at(x, y, c);
                    sum += v, sumSq += v * v, ++count;
                }
            }
        const double mean = sum / count;
        EXPECT_GT(std::sqrt(sumSq / count - mean * mean), 8.0);
        EXPECT_LT(mean, 130.0);  // still dark, so the objects stand out
    }
    EXPECT_GT(counts[2], 50);
    EXPECT_GT(counts[3], 50);
    EXPECT_GT(counts[4], 50);
    EXPECT_GT(small, 200);
}

TEST(Scenes96, DeterministicPerIndex) {
    const SceneOptions options = scenes96Options();
    for (std::int64_t i : {0, 5, 99999}) {
        const Sample a = renderScene(options, Split::Train, i);
        const Sample b = renderScene(options, Split::Train, i);
        EXPECT_EQ(a.image.pixels, b.image.pixels);
        EXPECT_EQ(a.captionWords, b.captionWords);
        EXPECT_EQ(a.references, b.references);
        EXPECT_NE(a.image.pixels, renderScene(options, Split::Train, i + 1).image.pixels);
        EXPECT_NE(a.image.pixels, renderScene(options, Split::Test, i).image.pixels);
        EXPECT_NE(a.image.pixels, renderScene(scenes96Options(2), Split::Train, i).image.pixels);
    }
}

TEST(Scenes64, UnchangedImagesAndCaptions) {
    // Hashes of the renderer before references, scenes96 and the textured option existed.
    const SceneOptions options;
    EXPECT_EQ(sceneHash(renderScene(options, Split::Train, 0)), 0x095733d990c55532ull);
    EXPECT_EQ(sceneHash(renderScene(options, Split::Train, 1)), 0xe4e1de8661e25511ull);
    EXPECT_EQ(sceneHash(renderScene(options, Split::Train, 5)), 0x945f9fdbef0c03f7ull);
    EXPECT_EQ(sceneHash(renderScene(options, Split::Test, 17)), 0xbf97764290464d86ull);
    EXPECT_EQ(sceneHash(renderScene(options, Split::Test, 12345)), 0x12b71a77bc9948dcull);
    std::uint64_t h = kFnvBasis;
    for (std::int64_t i = 0; i < 500; ++i) {
        h = sceneHash(renderScene(options, Split::Train, i), h);
        h = sceneHash(renderScene(options, Split::Test, i), h);
    }
    EXPECT_EQ(h, 0x5b2d3595114451acull);
    // Other options on the plain path are unchanged too.
    SceneOptions three;
    three.size = 96;
    three.minObjects = three.maxObjects = 3;
    three.seed = 7;
    h = kFnvBasis;
    for (std::int64_t i = 0; i < 200; ++i) h = sceneHash(renderScene(three, Split::Train, i), h);
    EXPECT_EQ(h, 0x3121a7fbe2edac25ull);
}

TEST(Scenes64, VocabularyUnchanged) {
    EXPECT_EQ(
        sceneVocabulary(),
        (Words{"<start>", "<end>", "<pad>",  "<unk>", "a",      "small",  "large",  "red",
               "green",   "blue",  "yellow", "white", "purple", "circle", "square", "triangle",
               "cross",   "left",  "right",  "of",    "above",  "below",  "which",  "is"}));
}

TEST(SceneDatasets, Scenes96IsRegistered) {
    const auto names = datasetNames();
    const auto at = [&](const std::string& name) {
        return std::find_if(names.begin(), names.end(),
                            [&](const auto& entry) { return entry.first == name; });
    };
    ASSERT_NE(at("scenes96"), names.end());
    EXPECT_EQ(at("scenes96"), at("scenes64") + 1);
    const auto shape = datasetShape("scenes96");
    ASSERT_TRUE(shape);
    EXPECT_EQ(shape->width, 96);
    EXPECT_EQ(shape->height, 96);
    EXPECT_EQ(shape->channels, 3);
    EXPECT_EQ(datasetShape("scenes64")->width, 64);

    const auto d = *openDataset("scenes96", {"", 5});
    EXPECT_EQ(d->info().name, "scenes96");
    EXPECT_EQ(d->info().width, 96);
    EXPECT_EQ(d->info().height, 96);
    EXPECT_EQ(d->info().channels, 3);
    EXPECT_EQ(d->size(Split::Train), 100000);
    EXPECT_EQ(d->size(Split::Test), 10000);
    EXPECT_EQ(d->objectSource(), nullptr);
    const Sample s = d->sample(Split::Test, 17);
    const Sample r = renderScene(scenes96Options(5), Split::Test, 17);
    EXPECT_EQ(s.image.pixels, r.image.pixels);
    EXPECT_EQ(s.references, r.references);

    // scenes64 still opens on the default options.
    SceneOptions plain;
    plain.seed = 5;
    const auto d64 = *openDataset("scenes64", {"", 5});
    EXPECT_EQ(d64->info().width, 64);
    EXPECT_EQ(d64->sample(Split::Train, 3).image.pixels,
              renderScene(plain, Split::Train, 3).image.pixels);
}
