#include "data/procedural_scenes.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <random>
#include <sstream>

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

constexpr std::uint64_t kSceneStream = 0x53434e45;    // "SCNE"
constexpr std::uint64_t kTextureStream = 0x54585452;  // "TXTR"

// Textured backgrounds: the grey is lifted so that the stripes' troughs stay above black.
constexpr double kTextureLift = 25;
constexpr double kStripeAmplitudeMin = 8, kStripeAmplitudeMax = 20;  // per stripe pattern
constexpr double kStripePeriodMin = 16, kStripePeriodMax = 48;       // pixels
constexpr double kNoiseSigma = 10;  // per pixel and channel, over the whole image

// Train and test draw from different streams.
std::uint64_t sceneSeed(std::uint64_t seed, Split split, std::int64_t index,
                        std::uint64_t stream = kSceneStream) {
    return mixSeed(seed, stream * 2 + (split == Split::Test ? 1 : 0),
                   static_cast<std::uint64_t>(index));
}

int pickIndex(std::mt19937_64& rng, int n) { return static_cast<int>(uniformInt(rng, 0, n - 1)); }
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

int sideFor(std::mt19937_64& rng, const SceneOptions& o, bool large) {
    const double u = uniform01(rng);
    const double fraction =
        large ? o.largeFraction + o.largeSpread * u : o.smallFraction + o.smallSpread * u;
    return std::max(large ? 9 : 6, int(std::lround(o.size * fraction)));
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

// Rounds to the nearest byte; inline arithmetic rather than lround, which costs a call per value.
std::uint8_t toByte(double v) { return std::uint8_t(std::clamp(v, 0.0, 255.0) + 0.5); }

// A triangle wave in [-1, 1] across the image: soft stripes. Plain arithmetic rather than sin,
// so that textures, like the rest of a scene, are bit-identical on every platform.
struct Stripes {
    double dx, dy, period, phase;
    double amplitude[3];
    double at(int x, int y) const {
        const double t = (x * dx + y * dy) / period + phase;
        double f = t - double(std::int64_t(t));  // the fraction of t, without a call to floor
        if (f < 0) f += 1;
        return 1 - 4 * std::abs(f - 0.5);
    }
};

Stripes randomStripes(std::mt19937_64& rng) {
    Stripes s{};
    // A direction uniform enough for a texture, without trigonometry.
    double dx = 0, dy = 0;
    while (dx * dx + dy * dy < 0.01) dx = 2 * uniform01(rng) - 1, dy = 2 * uniform01(rng) - 1;
    const double norm = std::sqrt(dx * dx + dy * dy);
    s.dx = dx / norm, s.dy = dy / norm;
    s.period = kStripePeriodMin + (kStripePeriodMax - kStripePeriodMin) * uniform01(rng);
    s.phase = uniform01(rng);
    const double amplitude =
        kStripeAmplitudeMin + (kStripeAmplitudeMax - kStripeAmplitudeMin) * uniform01(rng);
    for (double& a : s.amplitude) a = amplitude * (0.5 + 0.5 * uniform01(rng));  // a tint
    return s;
}

// Grey `background` with two tinted stripe patterns: structure at the scale of a coarse view,
// so that averaging a cell does not wash the background out to a known grey.
void paintTexture(cv::Mat& canvas, int background, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const Stripes stripes[2] = {randomStripes(rng), randomStripes(rng)};
    for (int y = 0; y < canvas.rows; ++y) {
        auto* row = canvas.ptr<std::uint8_t>(y);
        for (int x = 0; x < canvas.cols; ++x) {
            const double w0 = stripes[0].at(x, y), w1 = stripes[1].at(x, y);
            for (int c = 0; c < 3; ++c) {
                const double v = background + kTextureLift + w0 * stripes[0].amplitude[c] +
                                 w1 * stripes[1].amplitude[c];
                row[x * 3 + c] = toByte(v);
            }
        }
    }
}

// Zero-mean noise of standard deviation kNoiseSigma on every pixel and channel. Each value sums
// the four 16-bit quarters of one 64-bit hash (Irwin-Hall, close to Gaussian): splitmix64 of a
// counter costs a third of an mt19937_64 draw, and std::normal_distribution's output differs
// between standard libraries.
void addNoise(cv::Mat& canvas, std::uint64_t seed) {
    const double scale = kNoiseSigma / std::sqrt(4.0 / 12.0) / 65536.0;
    std::uint64_t counter = seed;
    for (int y = 0; y < canvas.rows; ++y) {
        auto* row = canvas.ptr<std::uint8_t>(y);
        for (int i = 0; i < canvas.cols * 3; ++i) {
            const std::uint64_t r = splitmix64(counter++);
            const double sum = double(r & 0xffff) + double((r >> 16) & 0xffff) +
                               double((r >> 32) & 0xffff) + double(r >> 48);
            const double v = row[i] + (sum - 2 * 65535.0) * scale;
            row[i] = toByte(v);
        }
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

// The caption that says relation[k] between objects k and k + 1, with the object each word
// describes (or -1) in wordObject: np rel np ("which" "is" rel np)*.
std::vector<std::string> caption(const std::vector<Placed>& placed,
                                 const std::vector<Relation>& relation,
                                 std::vector<int>& wordObject) {
    std::vector<std::string> words;
    wordObject.clear();
    auto add = [&](const std::string& word, int object) {
        words.push_back(word);
        wordObject.push_back(object);
    };
    for (size_t k = 0; k < placed.size(); ++k) {
        if (k >= 2) {
            add("which", -1);
            add("is", -1);
        }
        if (k >= 1) {
            for (const auto& word : kRelationWords[relation[k - 1]]) add(word, -1);
        }
        const Placed& p = placed[k];
        add("a", -1);
        add(kSizeNames[p.large], int(k));
        add(kColours[p.colour].name, int(k));
        add(kShapeNames[p.shape], int(k));
    }
    return words;
}

// Every caption: one per combination of the pairs' true relations, the last pair's choice
// varying fastest. Combinations differ in some relation word, so the captions are distinct.
std::vector<std::vector<std::string>> allCaptions(
    const std::vector<Placed>& placed, const std::vector<std::vector<Relation>>& relations) {
    std::vector<std::vector<std::string>> out;
    std::vector<size_t> choice(relations.size(), 0);
    std::vector<Relation> relation(relations.size());
    std::vector<int> unused;
    for (;;) {
        for (size_t k = 0; k < relations.size(); ++k) relation[k] = relations[k][choice[k]];
        out.push_back(caption(placed, relation, unused));
        size_t k = relations.size();
        while (k > 0 && ++choice[k - 1] == relations[k - 1].size()) choice[--k] = 0;
        if (k == 0) return out;
    }
}

}  // namespace

Sample renderScene(const SceneOptions& options, Split split, std::int64_t index) {
    assert(options.size >= 32);
    assert(options.minObjects >= 1 && options.minObjects <= options.maxObjects &&
           options.maxObjects <= 4);
    std::mt19937_64 rng(sceneSeed(options.seed, split, index));
    const int n = between(rng, options.minObjects, options.maxObjects);
    const int background = between(rng, 0, 50);

    std::vector<Placed> placed;
    for (int k = 0; k < n; ++k) {
        Placed p{};
        // Distinct (size, colour, shape) triples keep every caption unambiguous.
        do {
            p.shape = pickIndex(rng, kShapeCount);
            p.colour = pickIndex(rng, kColourCount);
            p.large = pickIndex(rng, 2);
        } while (std::any_of(placed.begin(), placed.end(), [&](const Placed& q) {
            return q.shape == p.shape && q.colour == p.colour && q.large == p.large;
        }));
        p.side = sideFor(rng, options, p.large);
        bool free = place(rng, options.size, placed, p);
        if (!free && p.large) {
            p.large = 0;  // a crowded scene still gets its object, only smaller
            p.side = sideFor(rng, options, false);
            free = place(rng, options.size, placed, p) &&
                   std::none_of(placed.begin(), placed.end(), [&](const Placed& q) {
                       return q.shape == p.shape && q.colour == p.colour && q.large == 0;
                   });
        }
        if (free) placed.push_back(p);
    }

    cv::Mat canvas(options.size, options.size, CV_8UC3,
                   cv::Scalar(background, background, background));
    // The texture and noise have a stream of their own: the layout and colours then draw from
    // `rng` just as they do on a plain background.
    const std::uint64_t textureSeed = sceneSeed(options.seed, split, index, kTextureStream);
    if (options.textured) paintTexture(canvas, background, textureSeed);
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
    if (options.textured) addNoise(canvas, splitmix64(textureSeed));
    s.image.width = s.image.height = options.size;
    s.image.channels = 3;
    s.image.pixels.assign(canvas.data, canvas.data + canvas.total() * canvas.elemSize());

    // One relation drawn per pair, in pair order (the draws scenes have always made); the
    // references enumerate the rest without drawing.
    std::vector<std::vector<Relation>> relations;
    std::vector<Relation> chosen;
    for (size_t k = 1; k < placed.size(); ++k) {
        relations.push_back(trueRelations(placed[k - 1], placed[k]));
        assert(!relations.back().empty());  // boxes kGap apart are separated along some axis
        chosen.push_back(relations.back()[pickIndex(rng, int(relations.back().size()))]);
    }
    s.captionWords = caption(placed, chosen, s.wordObject);
    // Any order of mention describes the scene equally well: every order, each with every
    // combination of true relations (the drawn order first).
    std::vector<size_t> order(placed.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    do {
        std::vector<Placed> permuted;
        for (size_t k : order) permuted.push_back(placed[k]);
        std::vector<std::vector<Relation>> permutedRelations;
        for (size_t k = 1; k < permuted.size(); ++k) permutedRelations.push_back(trueRelations(permuted[k - 1], permuted[k]));
        for (auto& c : allCaptions(permuted, permutedRelations)) s.references.push_back(std::move(c));
    } while (std::next_permutation(order.begin(), order.end()));
    if (!s.objects.empty()) {
        s.box = s.objects[0].box;
        s.label = s.objects[0].label;
    }
    return s;
}

Result<Sample> renderSceneProbe(const SceneOptions& options, const std::string& name, int side, int x, int y,
                                std::uint64_t seed) {
    std::istringstream words(name);
    std::string size, colour, shape, extra;
    words >> size >> colour >> shape;
    if (shape.empty() || (words >> extra))
        return Error{"a probe object is named by a size, a colour and a shape, e.g. 'small red circle'; got '" + name + "'"};
    Placed p{};
    p.large = size == "large" ? 1 : size == "small" ? 0 : -1;
    p.colour = -1, p.shape = -1;
    for (int c = 0; c < kColourCount; ++c)
        if (colour == kColours[c].name) p.colour = c;
    for (int k = 0; k < kShapeCount; ++k)
        if (shape == kShapeNames[k]) p.shape = k;
    if (p.large < 0 || p.colour < 0 || p.shape < 0)
        return Error{"unknown probe object '" + name + "' (sizes: small, large; colours: red, green, blue, yellow, "
                     "white, purple; shapes: circle, square, triangle, cross)"};
    if (side < 3 || x < 0 || y < 0 || x + side > options.size || y + side > options.size)
        return Error{"the probe's box (" + std::to_string(x) + ", " + std::to_string(y) + ", side " +
                     std::to_string(side) + ") leaves the " + std::to_string(options.size) + "-pixel image"};
    p.x = x, p.y = y, p.side = side;
    constexpr int kProbeBackground = 25;
    cv::Mat canvas(options.size, options.size, CV_8UC3, cv::Scalar(kProbeBackground, kProbeBackground, kProbeBackground));
    if (options.textured) paintTexture(canvas, kProbeBackground, seed);
    const Colour& c = kColours[p.colour];
    draw(canvas, p, cv::Scalar(c.r, c.g, c.b));
    if (options.textured) addNoise(canvas, splitmix64(seed));
    Sample s;
    s.image.width = s.image.height = options.size;
    s.image.channels = 3;
    s.image.pixels.assign(canvas.data, canvas.data + canvas.total() * canvas.elemSize());
    s.objects.push_back({Box{double(x), double(y), double(side), double(side)}, p.shape, name});
    s.captionWords = {"a", size, colour, shape};
    s.wordObject = {-1, 0, 0, 0};
    s.references = {s.captionWords};
    s.box = s.objects[0].box;
    s.label = p.shape;
    return s;
}

SceneOptions scenes96Options(std::uint64_t seed) {
    SceneOptions o;
    o.size = 96;
    o.minObjects = 2, o.maxObjects = 4;
    o.smallFraction = 0.11, o.smallSpread = 0.04;  // 11-14 px: an eighth of the image
    o.largeFraction = 0.30, o.largeSpread = 0.06;  // 29-35 px: a third
    o.textured = true;
    o.seed = seed;
    return o;
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
