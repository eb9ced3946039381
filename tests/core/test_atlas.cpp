// The atlas (issue 58): t-SNE, UMAP and PCA on data whose shape is known (clusters, a line), seeded and
// repeatable; and the atlas of the bundled ViT and sequence Transformer, with the models that
// have no queries and keys refused with the reason.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/atlas/atlas.h"
#include "analysis/atlas/embedding_2d.h"
#include "analysis/atlas/embedding_parts.h"
#include "data/seq_task.h"
#include "render/atlas_render.h"

using namespace saccade;

namespace {

// `clusters` Gaussian blobs of `each` points in `dim` dimensions, centres 10 apart, unit spread.
std::vector<float> blobs(int clusters, int each, int dim, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> unit(0, 1);
    std::vector<float> x;
    for (int c = 0; c < clusters; ++c)
        for (int i = 0; i < each; ++i)
            for (int d = 0; d < dim; ++d) x.push_back(unit(rng) + (d == c ? 10.0f : 0.0f));
    return x;
}

// The share of points whose nearest other point in the map is of their own cluster.
double neighbourPurity(const std::vector<double>& xy, int each) {
    const int n = int(xy.size() / 2);
    int same = 0;
    for (int i = 0; i < n; ++i) {
        int best = -1;
        double bestD = 0;
        for (int j = 0; j < n; ++j) {
            if (j == i) continue;
            const double d = std::pow(xy[2 * i] - xy[2 * j], 2) + std::pow(xy[2 * i + 1] - xy[2 * j + 1], 2);
            if (best < 0 || d < bestD) best = j, bestD = d;
        }
        same += best / each == i / each;
    }
    return double(same) / n;
}

std::string bundled(const std::string& name) { return std::string(SACCADE_SAMPLES_DIR) + "/models/" + name; }

}  // namespace

TEST(Embedding2d, TsneKeepsKnownClustersApartAndRepeatsForASeed) {
    const auto x = blobs(3, 60, 10, 7);
    Embedding2dOptions o;
    o.perplexity = 20;
    o.seed = 3;
    auto a = embed2d(x, 10, o), b = embed2d(x, 10, o);
    ASSERT_TRUE(a.ok() && b.ok()) << a.error();
    ASSERT_EQ(a->size(), 2u * 180);
    EXPECT_EQ(*a, *b);  // the same seed, the same map, bit for bit
    EXPECT_GE(neighbourPurity(*a, 60), 0.98);
    // The clusters' centres in the map lie further apart than the clusters are wide.
    double spread = 0, apart = INFINITY;
    std::vector<std::pair<double, double>> centre(3, {0, 0});
    for (int i = 0; i < 180; ++i) centre[i / 60].first += (*a)[2 * i] / 60, centre[i / 60].second += (*a)[2 * i + 1] / 60;
    for (int i = 0; i < 180; ++i)
        spread = std::max(spread, std::hypot((*a)[2 * i] - centre[i / 60].first, (*a)[2 * i + 1] - centre[i / 60].second));
    for (int c = 0; c < 3; ++c)
        for (int d = c + 1; d < 3; ++d)
            apart = std::min(apart, std::hypot(centre[c].first - centre[d].first, centre[c].second - centre[d].second));
    EXPECT_GT(apart, spread);
    o.seed = 4;
    auto other = embed2d(x, 10, o);
    ASSERT_TRUE(other.ok());
    EXPECT_NE(*a, *other);
    EXPECT_GE(neighbourPurity(*other, 60), 0.98);
}

TEST(Embedding2d, BarnesHutAgreesWithExactRepulsionOnClusters) {
    const auto x = blobs(4, 40, 6, 11);
    Embedding2dOptions exact;
    exact.theta = 0;
    exact.perplexity = 15;
    auto e = embed2d(x, 6, exact);
    Embedding2dOptions approximate = exact;
    approximate.theta = 0.5;
    auto b = embed2d(x, 6, approximate);
    ASSERT_TRUE(e.ok() && b.ok());
    EXPECT_GE(neighbourPurity(*e, 40), 0.98);
    EXPECT_GE(neighbourPurity(*b, 40), 0.98);
}

TEST(Embedding2d, PcaFindsTheDirectionOfLargestVariance) {
    // Points along (1, 2, 0, ...) with small noise: the first coordinate is the position on the line.
    std::mt19937_64 rng(5);
    std::normal_distribution<float> noise(0, 0.01f);
    std::vector<float> x;
    std::vector<double> t;
    for (int i = 0; i < 50; ++i) {
        const double s = i / 10.0 - 2.5;
        t.push_back(s);
        for (int d = 0; d < 5; ++d) x.push_back(float(s * (d == 0 ? 1 : d == 1 ? 2 : 0)) + noise(rng));
    }
    Embedding2dOptions o;
    o.method = "pca";
    auto y = embed2d(x, 5, o);
    ASSERT_TRUE(y.ok());
    double mt = 0, my = 0;
    for (int i = 0; i < 50; ++i) mt += t[i] / 50, my += (*y)[2 * i] / 50;
    double sty = 0, stt = 0, syy = 0, second = 0;
    for (int i = 0; i < 50; ++i) {
        sty += (t[i] - mt) * ((*y)[2 * i] - my), stt += std::pow(t[i] - mt, 2), syy += std::pow((*y)[2 * i] - my, 2);
        second = std::max(second, std::abs((*y)[2 * i + 1]));
    }
    EXPECT_GT(sty / std::sqrt(stt * syy), 0.9999);  // positive: the largest component is made positive
    EXPECT_NEAR(std::sqrt(syy / stt), std::sqrt(5.0), 1e-3);  // the line's length, |(1, 2)| per unit of t
    EXPECT_LT(second, 0.1);  // the second direction holds only the noise
}

TEST(Embedding2d, BadInputIsOneLine) {
    Embedding2dOptions o;
    o.method = "mds";
    EXPECT_EQ(embed2d(blobs(1, 5, 2, 1), 2, o).error(), "unknown embedding 'mds' (use tsne, umap or pca)");
    o.method = "umap";
    o.neighbors = 1;
    EXPECT_EQ(embed2d(blobs(1, 5, 2, 1), 2, o).error(), "--neighbors must be at least 2");
    o.neighbors = 15;
    o.minDist = 1.5;
    EXPECT_EQ(embed2d(blobs(1, 5, 2, 1), 2, o).error(), "--min-dist must be 0-1");
    o.minDist = NAN;
    EXPECT_EQ(embed2d(blobs(1, 5, 2, 1), 2, o).error(), "--min-dist must be 0-1");
    o.minDist = 0.1;
    EXPECT_EQ(embed2d(blobs(2, 20, 3, 1), 3, o, [](double) { return false; }).error(), "cancelled");
    o.method = "tsne";
    EXPECT_EQ(embed2d({1, 2, 3, 4}, 2, o).error(), "an embedding needs at least 3 points, got 2");
    EXPECT_EQ(embed2d({1, 2, 3}, 2, o).error(), "the points are not rows of 2 numbers");
    o.iterations = 100;
    EXPECT_EQ(embed2d(blobs(1, 5, 2, 1), 2, o).error(), "--iterations must be at least 250 (the first 250 exaggerate)");
    o.iterations = 1000;
    EXPECT_EQ(embed2d({1, 2, NAN, 4, 5, 6}, 2, o).error(), "the points hold a number that is not finite");
    bool asked = false;
    auto cancelled = embed2d(blobs(2, 20, 3, 1), 3, o, [&](double) { asked = true; return false; });
    EXPECT_TRUE(asked);
    EXPECT_EQ(cancelled.error(), "cancelled");
}

TEST(Embedding2d, UmapKeepsKnownClustersApartAndRepeatsForASeed) {
    const auto x = blobs(3, 80, 10, 11);
    Embedding2dOptions o;
    o.method = "umap";
    o.seed = 5;
    auto a = embed2d(x, 10, o), b = embed2d(x, 10, o);
    ASSERT_TRUE(a.ok() && b.ok()) << a.error();
    EXPECT_EQ(*a, *b);  // the same seed, the same map, to the bit
    EXPECT_GE(neighbourPurity(*a, 80), 0.99);
    // The clusters' centres lie further apart than their points from their own centre.
    std::vector<std::array<double, 2>> centre(3, {0, 0});
    for (int i = 0; i < 240; ++i) centre[std::size_t(i / 80)][0] += (*a)[std::size_t(2 * i)] / 80, centre[std::size_t(i / 80)][1] += (*a)[std::size_t(2 * i + 1)] / 80;
    double spread = 0;
    for (int i = 0; i < 240; ++i)
        spread = std::max(spread, std::hypot((*a)[std::size_t(2 * i)] - centre[std::size_t(i / 80)][0], (*a)[std::size_t(2 * i + 1)] - centre[std::size_t(i / 80)][1]));
    for (int c = 0; c < 3; ++c)
        for (int d = c + 1; d < 3; ++d)
            EXPECT_GT(std::hypot(centre[std::size_t(c)][0] - centre[std::size_t(d)][0], centre[std::size_t(c)][1] - centre[std::size_t(d)][1]), spread);
    o.seed = 6;
    auto other = embed2d(x, 10, o);
    ASSERT_TRUE(other.ok());
    EXPECT_NE(*other, *a);
    EXPECT_GE(neighbourPurity(*other, 80), 0.99);
}

TEST(Embedding2d, UmapCurveMatchesTheReferenceFit) {
    // umap-learn's find_ab_params (scipy's curve_fit on the same 300 points): min_dist 0.1 gives
    // a = 1.5769, b = 0.89506; min_dist 0.5 gives 0.58303, 1.33417 (run in this project's venv).
    const auto [a, b] = embedding::umapCurve(0.1);
    EXPECT_NEAR(a, 1.577, 2e-3);
    EXPECT_NEAR(b, 0.8951, 1e-3);
    const auto [a5, b5] = embedding::umapCurve(0.5);
    EXPECT_NEAR(a5, 0.5830, 2e-3);
    EXPECT_NEAR(b5, 1.334, 2e-3);
}

TEST(Atlas, TheViTsQueriesAndKeysOfEveryPatchOfEveryImage) {
    const auto vit = bundled("vit-translated-fashion60.pt");
    if (!std::filesystem::exists(vit)) GTEST_SKIP() << "no bundled models";
    AtlasOptions o;
    o.limit = 3;
    o.layer = 2;
    o.head = 3;
    o.embedding.method = "pca";
    auto a = buildAtlas(vit, o);
    if (!a.ok() && a.error().find("Fashion-MNIST") != std::string::npos) GTEST_SKIP() << a.error();
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->layers, 4);
    EXPECT_EQ(a->heads, 4);
    EXPECT_EQ(a->gridCols, 6);
    EXPECT_EQ(a->positions, "patch");
    ASSERT_EQ(a->points.size(), 2u * 3 * 37);  // [CLS] and 6 x 6 patches, queries and keys, 3 images
    std::set<std::pair<int, int>> queries, keys;
    for (const auto& p : a->points) {
        (p.query ? queries : keys).insert({p.input, p.position});
        EXPECT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
        if (p.position == 0) EXPECT_EQ(p.label, "[CLS]");
        if (p.position == 12) EXPECT_EQ(p.label, "1,5");  // the 12th patch: row 1, column 5
        if (p.query) EXPECT_TRUE(p.attends >= 0 && p.attends < 37) << p.attends;
        else EXPECT_EQ(p.attends, -1);
    }
    EXPECT_EQ(queries.size(), 111u);
    EXPECT_EQ(queries, keys);
    const auto j = nlohmann::json::parse(atlasToJson(*a));
    EXPECT_EQ(j["schema"], "saccade.atlas");
    EXPECT_EQ(j["points"].size(), 222u);
    EXPECT_EQ(j["points"][0]["kind"], "query");
    EXPECT_TRUE(j["points"][111]["attends"].is_null());
    // The picture: some of its pixels in the queries' blues and the keys' reds.
    const auto image = renderAtlas(*a, 400, 400).toImage();
    int blue = 0, red = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const int r = image.at(x, y, 0), b = image.at(x, y, 2);
            blue += b > r + 60 && b > 120;
            red += r > b + 60 && r > 120;
        }
    EXPECT_GT(blue, 100);
    EXPECT_GT(red, 100);
}

TEST(Atlas, TheSequenceTransformersTokensAreTheSentencesCharacters) {
    const auto seq = bundled("seq-dates-transformer.pt");
    if (!std::filesystem::exists(seq)) GTEST_SKIP() << "no bundled models";
    AtlasOptions o;
    o.limit = 4;
    o.embedding.method = "pca";
    auto a = buildAtlas(seq, o);
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->positions, "token");
    const auto task = openSeqTask("dates");
    ASSERT_TRUE(task.ok());
    std::size_t first = 0;
    for (const auto& p : a->points) {
        const auto source = (*task)->sample(Split::Test, p.input, kSeqTestSeed).source;
        ASSERT_LT(std::size_t(p.position), source.size());  // padding is left out
        EXPECT_EQ(p.label, source[std::size_t(p.position)]);
        first += p.input == 0 && p.query;
    }
    EXPECT_EQ(first, (*task)->sample(Split::Test, 0, kSeqTestSeed).source.size());
}

TEST(Atlas, ModelsWithoutQueriesAndKeysAreRefusedWithTheReason) {
    const auto patch = bundled("patch-soft-fashion60.pt"), rnn = bundled("seq-dates-additive.pt"), vit = bundled("vit-translated-fashion60.pt");
    if (!std::filesystem::exists(patch)) GTEST_SKIP() << "no bundled models";
    AtlasOptions o;
    o.limit = 2;
    o.embedding.method = "pca";
    EXPECT_EQ(buildAtlas(patch, o).error(), patch + " has no self-attention layers (a Transformer or ViT has)");
    EXPECT_EQ(buildAtlas(rnn, o).error(), rnn + " is a recurrent sequence model; its attention is not self-attention");
    o.layer = 5;
    auto far = buildAtlas(vit, o);
    if (far.ok() || far.error().find("Fashion-MNIST") == std::string::npos) {
        EXPECT_EQ(far.error(), "--layer must be 1-4 (the model has 4 layers)");
    }
    o.layer = 1;
    o.head = 9;
    auto many = buildAtlas(vit, o);
    if (many.ok() || many.error().find("Fashion-MNIST") == std::string::npos) {
        EXPECT_EQ(many.error(), "--head must be 1-4 (the layer has 4 heads)");
    }
}

TEST(Atlas, OffsetsCountAgainstChance) {
    // One sentence of three tokens; every query attends to its own key and sits on it in the map.
    Atlas a;
    a.positions = "token";
    for (int kind = 0; kind < 2; ++kind)
        for (int p = 0; p < 3; ++p) a.points.push_back({0, p, kind == 0, "x", double(p), 0.0, kind == 0 ? p : -1});
    const auto o = atlasOffsets(a);
    EXPECT_EQ(o.queries, 3);
    EXPECT_DOUBLE_EQ(o.attended[0], 1.0);
    EXPECT_DOUBLE_EQ(o.nearest[0], 1.0);
    EXPECT_NEAR(o.chance[0], 1.0 / 3, 1e-12);
    EXPECT_NEAR(o.chance[1], 4.0 / 9, 1e-12);
    EXPECT_NEAR(o.chance[2], 2.0 / 9, 1e-12);
    EXPECT_DOUBLE_EQ(o.chance[3], 0.0);
    // A ViT's patches on a 6-wide grid: (1,5) and (2,4) are one row and one column apart; [CLS] is 3 from any.
    a.positions = "patch";
    a.gridCols = 6;
    EXPECT_EQ(atlasPositionsApart(a, 12, 17), 1);
    EXPECT_EQ(atlasPositionsApart(a, 0, 17), 3);
    EXPECT_EQ(atlasPositionsApart(a, 1, 36), 5);
}
