#include <gtest/gtest.h>

#include <filesystem>

#include <torch/torch.h>

#include "data/dataset.h"
#include "models/attention_model.h"
#include "models/ram/glimpse_sensor.h"
#include "models/ram/ram_model.h"
#include "models/ram/ram_network.h"
#include "temp_dir.h"
#include "tiny_ram.h"
#include "io/checkpoint.h"
#include "models/ram/ram_trainer.h"
#include "test_device.h"

using namespace saccade;
using saccade::test::TempDir;
namespace fs = std::filesystem;
using torch::indexing::Slice;

namespace {

GlimpseGeometry geometry(int width, int height, int size, int scales, int factor, int channels = 1) {
    GlimpseGeometry g;
    g.imageWidth = width;
    g.imageHeight = height;
    g.size = size;
    g.scales = scales;
    g.factor = factor;
    g.channels = channels;
    return g;
}

// The glimpse the slow, obvious way: zero-pad, crop each scale around the centre pixel, average
// every s^i x s^i block.
torch::Tensor naiveGlimpse(const torch::Tensor& image, double x, double y, const GlimpseGeometry& g) {
    const auto [cx, cy] = locationToPixel(x, y, g.imageWidth, g.imageHeight);
    const int pad = g.size * int(std::pow(g.factor, g.scales - 1));
    const auto padded = torch::constant_pad_nd(image, {pad, pad, pad, pad}, 0);  // [C, H+2p, W+2p]
    std::vector<torch::Tensor> scales;
    int size = g.size;
    for (int i = 0; i < g.scales; ++i, size *= g.factor) {
        const int x0 = cx - size / 2 + pad, y0 = cy - size / 2 + pad;
        const auto crop = padded.index({Slice(), Slice(y0, y0 + size), Slice(x0, x0 + size)});
        const int cell = size / g.size;
        scales.push_back(torch::avg_pool2d(crop.unsqueeze(0), cell).squeeze(0).reshape({-1}));
    }
    return torch::cat(scales);
}

RamConfig tinyRam() { return test::tinyRamConfig(); }

std::string saveTinyRam(const TempDir& dir, const std::string& name, const RamConfig& config = tinyRam()) {
    return test::saveTinyRam(dir.file(name), config, 5);
}

Image ramDigitImage(std::int64_t i) { return (*openDataset("digits28"))->sample(Split::Test, i).image; }

}  // namespace

TEST(GlimpseSensor, SummedAreaGlimpsesEqualNaiveCropsAtEveryScaleAndBorder) {
    torch::manual_seed(0);
    const auto g = geometry(21, 17, 4, 3, 2, 3);  // odd, non-square sizes; 3 channels
    const auto images = torch::randint(0, 256, {2, 3, 17, 21}).to(torch::kFloat) / 255;  // 8-bit levels
    const std::vector<std::array<double, 2>> places = {
        {0, 0}, {-1, -1}, {1, 1}, {-1, 1}, {0.93, -0.41}, {-0.5, 0.77}, {1.7, -3}};  // last: clamped
    auto locations = torch::empty({long(places.size()), 2});
    for (size_t i = 0; i < places.size(); ++i) {
        locations[long(i)][0] = places[i][0];
        locations[long(i)][1] = places[i][1];
    }
    const auto sat = summedAreaTable(images);
    for (int b = 0; b < 2; ++b) {
        const auto got = extractGlimpses(sat.narrow(0, b, 1), locations, g);
        ASSERT_EQ(got.sizes(), (std::vector<std::int64_t>{long(places.size()), g.features()}));
        for (size_t i = 0; i < places.size(); ++i) {
            const auto want = naiveGlimpse(images[b], places[i][0], places[i][1], g);
            EXPECT_TRUE(torch::allclose(got[long(i)], want, 1e-6, 1e-6))
                << "image " << b << " location (" << places[i][0] << ", " << places[i][1] << ")";
        }
    }
    // One table per location gives the same as a shared one.
    const auto perLocation = extractGlimpses(sat[0].unsqueeze(0).expand({long(places.size()), -1, -1, -1}).contiguous(),
                                             locations, g);
    EXPECT_TRUE(torch::allclose(perLocation, extractGlimpses(sat.narrow(0, 0, 1), locations, g)));
}

TEST(GlimpseSensor, BoxesCoverExactlyThePixelsEachScaleReads) {
    const auto g = geometry(60, 60, 12, 3, 2);
    const auto centre = glimpseBoxes(0, 0, g);
    ASSERT_EQ(centre.size(), 3u);
    EXPECT_EQ(centre[0], (Box{24, 24, 12, 12}));
    EXPECT_EQ(centre[1], (Box{18, 18, 24, 24}));
    EXPECT_EQ(centre[2], (Box{6, 6, 48, 48}));
    EXPECT_EQ(glimpseBoxes(-1, -1, g)[0], (Box{-6, -6, 12, 12}));  // the top-left corner, half outside
    EXPECT_EQ(glimpseBoxes(1, 1, g)[2], (Box{36, 36, 48, 48}));
    EXPECT_EQ(glimpseBoxes(5, -5, g)[0], glimpseBoxes(1, -1, g)[0]);  // clamped like the sensor

    // A single lit pixel shows up in scale i exactly when it lies in box i, in the cell the box says.
    for (const auto& [lx, ly] : std::vector<std::pair<double, double>>{{0.1, -0.3}, {-1, -1}, {1, 0.98}}) {
        const auto boxes = glimpseBoxes(lx, ly, g);
        for (int py : {0, 5, 29, 47, 59})
            for (int px : {0, 3, 30, 55, 59}) {
                auto image = torch::zeros({1, 1, 60, 60});
                image[0][0][py][px] = 1;
                const auto location = torch::tensor({{float(lx), float(ly)}});
                const auto glimpse = extractGlimpses(summedAreaTable(image), location, g).view({3, 12, 12});
                for (int i = 0; i < 3; ++i) {
                    const auto& b = boxes[size_t(i)];
                    const bool inside = px >= b.x && px < b.x + b.w && py >= b.y && py < b.y + b.h;
                    EXPECT_EQ(glimpse[i].sum().item<float>() > 0, inside)
                        << "pixel (" << px << ", " << py << ") scale " << i << " at (" << lx << ", " << ly << ")";
                    if (!inside) continue;
                    const int cell = int(b.w) / 12;
                    const int cx = (px - int(b.x)) / cell, cy = (py - int(b.y)) / cell;
                    EXPECT_NEAR(glimpse[i][cy][cx].item<float>(), 1.0 / (cell * cell), 1e-6);
                }
            }
    }
}

TEST(GlimpseSensor, BadLocationsAndShapesSayWhatIsWrong) {
    const auto g = geometry(28, 28, 8, 1, 2);
    const auto sat = summedAreaTable(torch::rand({1, 1, 28, 28}));
    auto message = [&](const torch::Tensor& sat, const torch::Tensor& locations) -> std::string {
        try {
            extractGlimpses(sat, locations, g);
        } catch (const c10::Error& e) {
            return e.what_without_backtrace();
        }
        return "no error";
    };
    EXPECT_NE(message(sat, torch::zeros({4, 3})).find("locations must be [N, 2]"), std::string::npos);
    EXPECT_NE(message(sat, torch::tensor({{0.f, NAN}})).find("NaN or infinite"), std::string::npos);
    EXPECT_NE(message(sat, torch::tensor({{INFINITY, 0.f}})).find("NaN or infinite"), std::string::npos);
    EXPECT_NE(message(summedAreaTable(torch::rand({1, 1, 20, 28})), torch::zeros({1, 2})).find("does not match"),
              std::string::npos);
    EXPECT_NE(message(summedAreaTable(torch::rand({3, 1, 28, 28})), torch::zeros({2, 2})).find("3 tables for 2"),
              std::string::npos);

    torch::manual_seed(0);
    RamNetwork net(tinyRam());
    Rng rng(1);
    try {
        net->forward(torch::rand({2, 1, 30, 30}), RamRule::Sample, rng);
        FAIL() << "a 30x30 image reached a 28x28 RAM";
    } catch (const c10::Error& e) {
        EXPECT_NE(std::string(e.what_without_backtrace()).find("images must be [B, 1, 28, 28]"), std::string::npos);
    }
}

TEST(RamNetwork, BatchedEpisodesEqualSeparateRunsAndSeedsRepeat) {
    torch::manual_seed(1);
    RamNetwork net(tinyRam());
    net->eval();
    torch::NoGradGuard noGrad;
    const auto image = torch::rand({1, 1, 28, 28});
    Rng a(7), b(7), c(8);
    const auto batched = net->forward(image, RamRule::Sample, a, true, 50);
    const auto repeated = net->forward(image.expand({50, 1, 28, 28}).contiguous(), RamRule::Sample, b, true);
    // (The batched call runs the shared first step on one row: equal up to float rounding.)
    EXPECT_TRUE(torch::allclose(batched.logits, repeated.logits, 1e-4, 1e-5));
    EXPECT_TRUE(torch::allclose(batched.locations, repeated.locations, 1e-5, 1e-6));
    EXPECT_FALSE(torch::equal(batched.locations, net->forward(image, RamRule::Sample, c, true, 50).locations));
    // Batched, the first step and every glimpse at a centre pixel another episode chose in the same
    // step went through the glimpse layers once; separately, all of them did.
    const int steps = net->config().glimpses;
    EXPECT_EQ(repeated.glimpsesComputed, 50 * steps);
    EXPECT_LT(batched.glimpsesComputed, 1 + 50 * (steps - 1));

    // The first glimpse is at the centre; sampled ones spread around their means by the policy's std.
    EXPECT_TRUE(torch::equal(batched.locations[0], torch::zeros({50, 2})));
    const auto spread = (batched.locations[1] - batched.means[1]).std().item<double>();
    EXPECT_NEAR(spread, 0.2, 0.05);

    // The mean rule ignores the seed.
    Rng d(1), e(999);
    const auto m1 = net->forward(image, RamRule::Mean, d, true, 3), m2 = net->forward(image, RamRule::Mean, e, true, 3);
    EXPECT_TRUE(torch::equal(m1.locations, m2.locations));
    EXPECT_TRUE(torch::equal(m1.logits, m2.logits));
    // Episodes of one image under the mean rule go to the same places. Rows of one batch need not
    // be equal to the bit: OpenBLAS's Prescott kernels (its choice on Xeons it does not know) round
    // the last row of three apart from the first.
    EXPECT_TRUE(torch::allclose(m1.locations[2][0], m1.locations[2][2], 1e-5, 1e-6));
}

TEST(RamNetwork, HybridLossScoresEachDrawAgainstItsBaseline) {
    RamOutput out;
    out.logits = torch::tensor({{2.f, 0.f}, {0.f, 1.f}});  // predicts 0, 1
    out.baselines = torch::tensor({{0.25f, 0.5f}, {0.75f, 0.5f}});  // [T=2, B=2]
    out.logProb = torch::tensor({{0.f, 0.f}, {-1.f, -2.f}});
    const auto labels = torch::tensor({0, 0}, torch::kLong);  // first right, second wrong
    const auto l = ramHybridLoss(out, labels);
    EXPECT_TRUE(torch::equal(l.reward, torch::tensor({1.f, 0.f})));
    // REINFORCE: -mean_b sum_t logp_{t+1} (r_b - b_{t,b}) = -((-1)(1 - 0.25) + (-2)(0 - 0.5)) / 2
    EXPECT_NEAR(l.reinforce.item<double>(), -((-1 * 0.75) + (-2 * -0.5)) / 2, 1e-6);
    // Baseline: mean squared error over all T x B.
    EXPECT_NEAR(l.baseline.item<double>(), (0.75 * 0.75 + 0.5 * 0.5 + 0.25 * 0.25 + 0.5 * 0.5) / 4, 1e-6);
    const double ce = (std::log(1 + std::exp(-2.0)) + std::log(1 + std::exp(1.0))) / 2;
    EXPECT_NEAR(l.crossEntropy.item<double>(), ce, 1e-5);
    EXPECT_NEAR(l.total.item<double>(), ce + l.baseline.item<double>() + l.reinforce.item<double>(), 1e-5);
}

// An easy task where looking in the right place is everything: an 8x8 patch of stripes in the
// top-left quarter of a 32x32 image, horizontal for class 0 and vertical for class 1. The first
// glimpse (8x8 at the centre) cannot see it; the policy must learn to move there.
TEST(RamNetwork, ShortTrainingOnAnEasyTaskBeatsRandomGlimpses) {
    RamConfig c;
    c.imageSize = 32;
    c.glimpseSize = 8;
    c.scales = 1;
    c.glimpses = 2;
    c.glimpseHidden = 32;
    c.glimpseDim = 64;
    c.hidden = 64;
    c.locationStd = 0.25;
    c.classes = 2;
    auto makeBatch = [](int n, torch::Generator& gen) {
        const auto labels = torch::randint(0, 2, {n}, gen, torch::kLong);
        auto images = torch::zeros({n, 1, 32, 32});
        const auto stripes = (torch::arange(8) % 2).to(torch::kFloat);
        const auto horizontal = stripes.view({8, 1}).expand({8, 8}), vertical = stripes.view({1, 8}).expand({8, 8});
        for (int i = 0; i < n; ++i)
            images[i][0].index_put_({Slice(4, 12), Slice(4, 12)}, labels[i].item<long>() == 0 ? horizontal : vertical);
        return std::make_pair(images, labels);
    };
    torch::manual_seed(3);
    auto gen = at::detail::createCPUGenerator(11);
    RamNetwork net(c);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(3e-3));
    Rng rng(4);
    for (int it = 0; it < 300; ++it) {
        const auto [x, y] = makeBatch(64, gen);
        const auto loss = ramHybridLoss(net->forward(x, RamRule::Sample, rng), y).total;
        adam.zero_grad();
        loss.backward();
        adam.step();
    }
    net->eval();
    torch::NoGradGuard noGrad;
    const auto [x, y] = makeBatch(1000, gen);
    auto accuracy = [&](RamRule rule) {
        Rng r(9);
        return (net->forward(x, rule, r).logits.argmax(-1) == y).to(torch::kDouble).mean().item<double>();
    };
    const double mean = accuracy(RamRule::Mean), random = accuracy(RamRule::Random);
    EXPECT_GT(mean, 0.95);
    EXPECT_LT(random, 0.85);
    EXPECT_GT(mean - random, 0.15) << "mean " << mean << ", random glimpses " << random;
    // And the policy learned where: the second glimpse's mean sits over the stripes (pixels 4..12).
    Rng r(1);
    const auto where = net->forward(x.narrow(0, 0, 1), RamRule::Mean, r).locations[1][0];
    const auto [px, py] = locationToPixel(where[0].item<double>(), where[1].item<double>(), 32, 32);
    EXPECT_TRUE(px > 0 && px < 16 && py > 0 && py < 16) << "second glimpse at (" << px << ", " << py << ")";
}

TEST(RamModel, TracesRecordGaussiansBoxesAndRepeatPerSeed) {
    TempDir dir;
    const auto path = saveTinyRam(dir, "ram.pt");
    auto model = loadAttentionModel(path, test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->deterministicRule(), "mean");
    EXPECT_EQ((*model)->steps(), 3);
    const auto image = ramDigitImage(4);
    auto a = (*model)->trace(image, "sample", 21, "digit4"), b = (*model)->trace(image, "sample", 21, "digit4");
    auto c = (*model)->trace(image, "sample", 22, "digit4");
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.error();
    EXPECT_EQ(traceToJson(*a), traceToJson(*b));
    EXPECT_NE(traceToJson(*a), traceToJson(*c));
    ASSERT_EQ(a->steps.size(), 3u);
    EXPECT_FALSE(a->steps[0].gaussian.has_value());  // the fixed first glimpse
    EXPECT_EQ(*a->steps[0].chosenPoint, (std::array<double, 2>{14, 14}));
    for (const auto& step : a->steps) {
        ASSERT_EQ(step.glimpses.size(), 2u);
        EXPECT_EQ(step.glimpses[0].box.w, 6);
        EXPECT_EQ(step.glimpses[1].box.w, 12);
        EXPECT_EQ(step.outputProbs.size(), 10u);
    }
    const auto& g = *a->steps[1].gaussian;
    EXPECT_NEAR(g.stdX, 0.2 * 28 / 2, 1e-9);
    const auto& p = *a->steps[1].chosenPoint;
    const auto [cx, cy] = locationToPixel(p[0] / 14 - 1, p[1] / 14 - 1, 28, 28);
    EXPECT_EQ(a->steps[1].glimpses[0].box, (Box{double(cx - 3), double(cy - 3), 6, 6}));

    auto m1 = (*model)->trace(image, "mean", 1, "x"), m2 = (*model)->trace(image, "mean", 2, "x");
    ASSERT_TRUE(m1.ok() && m2.ok());
    for (size_t s = 0; s < 3; ++s) EXPECT_EQ(*m1->steps[s].chosenPoint, *m2->steps[s].chosenPoint);
    EXPECT_EQ(m1->output.probs, m2->output.probs);

    auto k = (*model)->trace(image, "ksample:8", 3, "x");
    ASSERT_TRUE(k.ok()) << k.error();
    EXPECT_EQ(k->steps[2].glimpses.size(), 8u);  // every run's finest box
    auto bad = (*model)->trace(image, "argmax", 1, "x");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("not a rule of the recurrent attention model"), std::string::npos);
}

TEST(RamModel, CheckpointsRoundTripAndWrongFilesAreRefused) {
    TempDir dir;
    const auto path = saveTinyRam(dir, "ram.pt");
    auto once = RamModel::load(path, test::testDevice()), twice = RamModel::load(path, test::testDevice());
    ASSERT_TRUE(once.ok() && twice.ok());
    const auto image = ramDigitImage(1);
    EXPECT_EQ(traceToJson(*(*once)->trace(image, "sample", 5, "i")), traceToJson(*(*twice)->trace(image, "sample", 5, "i")));

    // A RAM sidecar whose config no longer matches the weights.
    auto bigger = tinyRam();
    bigger.hidden = 32;
    const auto other = saveTinyRam(dir, "other.pt", bigger);
    fs::copy_file(fs::path(path).replace_extension(".json"), fs::path(other).replace_extension(".json"),
                  fs::copy_options::overwrite_existing);
    auto mismatched = RamModel::load(other, test::testDevice());
    ASSERT_FALSE(mismatched.ok());
    EXPECT_NE(mismatched.error().find(other), std::string::npos) << mismatched.error();

    // The wrong kind of model.
    auto notRam = RamModel::load(SACCADE_SAMPLES_DIR "/models/patch-soft-fashion60.pt", test::testDevice());
    ASSERT_FALSE(notRam.ok());
    EXPECT_NE(notRam.error().find("not a recurrent attention model"), std::string::npos) << notRam.error();
}

TEST(RamTrainer, TrainsSavesResumesAndEvaluates) {
    TempDir dir;
    RamTrainOptions o;
    o.dataset = "digits28";
    o.model.glimpses = 3;
    o.model.hidden = o.model.glimpseDim = 32;
    o.batch = 16;
    o.replicas = 2;
    o.iterations = 6;
    o.evalEvery = 3;
    o.evalImages = 50;
    o.device = test::testDevice();
    o.out = dir.file("ram.pt");
    std::vector<std::int64_t> seen;
    auto summary = trainRamModel(o, [&](const TrainProgress& p) {
        seen.push_back(p.iteration);
        return true;
    });
    ASSERT_TRUE(summary.ok()) << summary.error();
    EXPECT_EQ(summary->iterations, 6);
    EXPECT_EQ(seen.size(), 6u);
    auto info = readCheckpointInfo(o.out);
    ASSERT_TRUE(info.ok());
    const auto saved = ramConfigFromJson(info->configJson);
    ASSERT_TRUE(saved.ok());
    EXPECT_EQ(saved->glimpseSize, 8);  // the 28x28 defaults of Mnih et al.
    EXPECT_EQ(saved->scales, 1);
    EXPECT_EQ(info->iteration, 6);

    o.resume = o.out;
    o.iterations = 9;
    auto resumed = trainRamModel(o);
    ASSERT_TRUE(resumed.ok()) << resumed.error();
    EXPECT_EQ(resumed->iterations, 9);
    auto model = loadAttentionModel(o.out, test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("digits28");
    auto report = (*model)->evaluate(**dataset, Split::Test, {"mean", "sample", "random", "ksample:3"}, 40, 1);
    ASSERT_TRUE(report.ok()) << report.error();
    ASSERT_EQ(report->rules.size(), 4u);
    for (const auto& r : report->rules) {
        EXPECT_EQ(r.n, 40);
        EXPECT_GE(r.accuracy, 0.0);
        EXPECT_LE(r.accuracy, 1.0);
    }
    EXPECT_EQ(report->rules[3].rule, "ksample:3");

    o.iterations = 12;
    auto cancelled = trainRamModel(o, [](const TrainProgress&) { return false; });
    ASSERT_TRUE(cancelled.ok());
    EXPECT_TRUE(cancelled->cancelled);

    RamTrainOptions wrong = o;
    wrong.resume.clear();
    wrong.model.core = "gru";
    auto refused = trainRamModel(wrong);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("unknown core 'gru'"), std::string::npos) << refused.error();
}
