#include "data/procedural_scenes.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <random>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "common/seed_mix.h"

namespace saccade {

namespace {

enum Shape { kCircle, kSquare, kTriangle, kCross, kShapeCount };
const char* const kShapeNames[kShapeCount] = {"circle", "square", "triangle", "cross"};

struct Colour {
    const char* name;
    int r, g, b;
};
// Far apart in RGB, so each stays recognisable after the +-15 jitter on a dark background.
constexpr Colour kColours[] = {{"red", 215, 40, 40},     {"green", 50, 190, 60},
                               {"blue", 50, 90, 235},    {"yellow", 230, 215, 40},
                               {"white", 235, 235, 235}, {"purple", 150, 60, 210}};
constexpr int kColourCount = int(std::size(kColours));
const char* const kSizeNames[2] = {"small", "large"};

enum Relation { kLeftOf, kRightOf, kAbove, kBelow };
const std::vector<std::string> kRelationWords[4] = {
    {"left", "of"}, {"right", "of"}, {"above"}, {"below"}};

constexpr int kGap = 2;  // pixels kept free between boxes, so relations read clearly
constexpr int kPlacementTries = 200;
constexpr int kColourJitter = 15;
constexpr int kTintJitter = 5;

constexpr std::uint64_t kSceneStream = 0x53434e45;  // "SCNE"

// Train and test draw from different streams.
std::uint64_t sceneSeed(std::uint64_t seed, Split split, std::int64_t index) {
    return mixSeed(seed, kSceneStream * 2 + (split == Split::Test ? 1 : 0),
                   static_cast<std::uint64_t>(index));
}

int pick(std::mt19937_64& rng, int n) { return static_cast<int>(uniformInt(rng, 0, n - 1)); }
int between(std::mt19937_64& rng, int lo, int hi) {
    return static_cast<int>(uniformInt(rng, lo, hi));
}

struct Placed {
    int shape, colour, large;
    int x, y, side;
};

bool separated(const Placed& a, int x, int y, int side) {
    return x + side + kGap <= a.x || a.x + a.side + kGap <= x || y + side + kGap <= a.y ||
           a.y + a.side + kGap <= y;
}

int sideFor(std::mt19937_64& rng, int imageSize, bool large) {
    const double fraction = large ? 0.30 + 0.08 * uniform01(rng) : 0.16 + 0.06 * uniform01(rng);
    return std::max(large ? 9 : 6, int(std::lround(imageSize * fraction)));
}

// Tries random positions; returns false when none is free of the placed objects.
bool place(std::mt19937_64& rng, int imageSize, const std::vector<Placed>& placed, Placed& p) {
    for (int t = 0; t < kPlacementTries; ++t) {
        const int x = between(rng, 1, imageSize - p.side - 1);
        const int y = between(rng, 1, imageSize - p.side - 1);
        if (std::all_of(placed.begin(), placed.end(),
                        [&](const Placed& q) { return separated(q, x, y, p.side); })) {
            p.x = x, p.y = y;
            return true;
        }
    }
    return false;
}

// Draws a filled shape inside the box [x, x + side) x [y, y + side). Fractional coordinates (shift
// 4) keep circles and triangles symmetric in their box.
void draw(cv::Mat& image, const Placed& p, const cv::Scalar& colour) {
    constexpr int kShift = 4;
    const double one = 1 << kShift;
    const double last = p.side - 1;
    auto pt = [&](double x, double y) {
        return cv::Point(int(std::lround((p.x + x) * one)), int(std::lround((p.y + y) * one)));
    };
    switch (p.shape) {
        case kCircle:
            cv::circle(image, pt(last / 2, last / 2), int(std::lround(last / 2 * one)), colour,
                       cv::FILLED, cv::LINE_AA, kShift);
            break;
        case kSquare:
            cv::rectangle(image, cv::Point(p.x, p.y), cv::Point(p.x + p.side - 1, p.y + p.side - 1),
                          colour, cv::FILLED);
            break;
        case kTriangle: {
            const cv::Point corners[3] = {pt(last / 2, 0), pt(0, last), pt(last, last)};
            cv::fillConvexPoly(image, corners, 3, colour, cv::LINE_AA, kShift);
            break;
        }
        case kCross: {
            const int arm = std::max(3, int(std::lround(p.side / 3.0)));
            const int offset = (p.side - arm) / 2;
            cv::rectangle(image, cv::Point(p.x, p.y + offset),
                          cv::Point(p.x + p.side - 1, p.y + offset + arm - 1), colour, cv::FILLED);
            cv::rectangle(image, cv::Point(p.x + offset, p.y),
                          cv::Point(p.x + offset + arm - 1, p.y + p.side - 1), colour, cv::FILLED);
            break;
        }
        default:
            assert(false);
    }
}

std::vector<Relation> trueRelations(const Placed& a, const Placed& b) {
    std::vector<Relation> out;
    if (a.x + a.side <= b.x) out.push_back(kLeftOf);
    if (b.x + b.side <= a.x) out.push_back(kRightOf);
    if (a.y + a.side <= b.y) out.push_back(kAbove);
    if (b.y + b.side <= a.y) out.push_back(kBelow);
    return out;
}

void appendPhrase(Sample& s, const Placed& p, int object) {
    const std::string words[4] = {"a", kSizeNames[p.large], kColours[p.colour].name,
                                  kShapeNames[p.shape]};
    for (int k = 0; k < 4; ++k) {
        s.captionWords.push_back(words[k]);
        s.wordObject.push_back(k == 0 ? -1 : object);
    }
}

void appendRelation(Sample& s, std::mt19937_64& rng, const Placed& a, const Placed& b) {
    const auto relations = trueRelations(a, b);
    assert(!relations.empty());  // boxes kGap apart are separated along some axis
    for (const auto& word : kRelationWords[relations[pick(rng, int(relations.size()))]]) {
        s.captionWords.push_back(word);
        s.wordObject.push_back(-1);
    }
}

}  // namespace

Sample renderScene(const SceneOptions& options, Split split, std::int64_t index) {
    assert(options.size >= 32);
    assert(options.minObjects >= 1 && options.minObjects <= options.maxObjects &&
           options.maxObjects <= 3);
    std::mt19937_64 rng(sceneSeed(options.seed, split, index));
    const int n = between(rng, options.minObjects, options.maxObjects);
    const int background = between(rng, 0, 50);

    std::vector<Placed> placed;
    for (int k = 0; k < n; ++k) {
        Placed p{};
        // Distinct (size, colour, shape) triples keep every caption unambiguous.
        do {
            p.shape = pick(rng, kShapeCount);
            p.colour = pick(rng, kColourCount);
            p.large = pick(rng, 2);
        } while (std::any_of(placed.begin(), placed.end(), [&](const Placed& q) {
            return q.shape == p.shape && q.colour == p.colour && q.large == p.large;
        }));
        p.side = sideFor(rng, options.size, p.large);
        bool free = place(rng, options.size, placed, p);
        if (!free && p.large) {
            p.large = 0;  // a crowded scene still gets its object, only smaller
            p.side = sideFor(rng, options.size, false);
            free = place(rng, options.size, placed, p) &&
                   std::none_of(placed.begin(), placed.end(), [&](const Placed& q) {
                       return q.shape == p.shape && q.colour == p.colour && q.large == 0;
                   });
        }
        if (free) placed.push_back(p);
    }

    cv::Mat canvas(options.size, options.size, CV_8UC3,
                   cv::Scalar(background, background, background));
    Sample s;
    for (size_t k = 0; k < placed.size(); ++k) {
        const Placed& p = placed[k];
        const Colour& c = kColours[p.colour];
        // Mostly a shared brightness shift: independent shifts would tint white.
        const int shade = between(rng, -kColourJitter, kColourJitter);
        auto jitter = [&](int v) {
            return std::clamp(v + shade + between(rng, -kTintJitter, kTintJitter), 0, 255);
        };
        const int r = jitter(c.r), g = jitter(c.g), b = jitter(c.b);
        draw(canvas, p, cv::Scalar(r, g, b));  // the canvas is RGB, as Image is
        s.objects.push_back(
            {Box{double(p.x), double(p.y), double(p.side), double(p.side)}, p.shape,
             std::string(kSizeNames[p.large]) + " " + c.name + " " + kShapeNames[p.shape]});
    }
    s.image.width = s.image.height = options.size;
    s.image.channels = 3;
    s.image.pixels.assign(canvas.data, canvas.data + canvas.total() * canvas.elemSize());

    for (size_t k = 0; k < placed.size(); ++k) {
        if (k == 1) appendRelation(s, rng, placed[0], placed[1]);
        if (k == 2) {
            s.captionWords.insert(s.captionWords.end(), {"which", "is"});
            s.wordObject.insert(s.wordObject.end(), {-1, -1});
            appendRelation(s, rng, placed[1], placed[2]);
        }
        appendPhrase(s, placed[k], int(k));
    }
    if (!s.objects.empty()) {
        s.box = s.objects[0].box;
        s.label = s.objects[0].label;
    }
    return s;
}

std::vector<std::string> sceneVocabulary() {
    std::vector<std::string> words = {"<start>", "<end>", "<pad>", "<unk>", "a"};
    words.insert(words.end(), std::begin(kSizeNames), std::end(kSizeNames));
    for (const auto& c : kColours) words.push_back(c.name);
    words.insert(words.end(), std::begin(kShapeNames), std::end(kShapeNames));
    words.insert(words.end(), {"left", "right", "of", "above", "below", "which", "is"});
    return words;
}

std::vector<std::string> sceneShapes() { return {std::begin(kShapeNames), std::end(kShapeNames)}; }

}  // namespace saccade
