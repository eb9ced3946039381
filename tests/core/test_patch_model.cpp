#include <gtest/gtest.h>
#include <set>
#include <algorithm>

#include <filesystem>

#include <torch/torch.h>

#include "attention/reinforce.h"
#include "common/atomic_file.h"
#include "data/dataset.h"
#include "models/patch/patch_classifier.h"
#include "models/patch/patch_model.h"
#include "temp_dir.h"
#include "tiny_patch.h"
#include "io/checkpoint.h"
#include "models/patch/patch_trainer.h"
#include "test_device.h"

using namespace saccade;
using saccade::test::TempDir;
using saccade::test::saveTinyPatch;
using saccade::test::tinyPatchConfig;
namespace fs = std::filesystem;

namespace {

Image digitImage(std::int64_t i) { return (*openDataset("digits28"))->sample(Split::Test, i).image; }

}  // namespace

TEST(PatchModel, ShapesPerRule) {
    torch::manual_seed(0);
    PatchClassifier net(tinyPatchConfig());
    const auto x = torch::rand({5, 1, 28, 28});
    for (const char* spec : {"soft", "sample", "argmax", "gumbel:0.5"}) {
        Rng rng(1);
        const auto out = net->forward(x, *parseSelectionRule(spec), rng);
        EXPECT_EQ(out.logits.sizes(), (std::vector<std::int64_t>{5, 10})) << spec;
        EXPECT_EQ(out.stepLogits.sizes(), (std::vector<std::int64_t>{3, 5, 10})) << spec;
        EXPECT_EQ(out.probs.sizes(), (std::vector<std::int64_t>{3, 5, 49})) << spec;
        EXPECT_EQ(out.indices.size(2), std::string(spec) == "soft" ? 0 : 1) << spec;
        EXPECT_TRUE(torch::allclose(out.probs.sum(-1), torch::ones({3, 5}))) << spec;
    }
    EXPECT_THROW(net->encode(torch::rand({1, 1, 30, 30})), c10::Error);
}

TEST(PatchModel, GradientsReachTheScorerInEveryMode) {
    const auto x = torch::rand({6, 1, 28, 28});
    const auto y = torch::randint(10, {6});
    for (const char* spec : {"soft", "sample", "gumbel:0.5"}) {
        torch::manual_seed(0);
        PatchClassifier net(tinyPatchConfig());
        Rng rng(2);
        const auto out = net->forward(x, *parseSelectionRule(spec), rng);
        auto loss = torch::nn::functional::cross_entropy(out.logits, y);
        if (std::string(spec) == "sample") {  // hard attention learns where to look via REINFORCE
            const auto reward = -torch::nn::functional::cross_entropy(
                out.logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
            loss = loss + reinforceLoss(out.logProb.sum(0), reward.detach(), torch::zeros({}));
        }
        loss.backward();
        double scorerGrad = 0, encoderGrad = 0;
        for (const auto& p : net->named_parameters()) {
            if (!p.value().grad().defined()) continue;
            const double g = p.value().grad().abs().sum().item<double>();
            if (p.key().rfind("scorer", 0) == 0) scorerGrad += g;
            if (p.key().rfind("encoder", 0) == 0) encoderGrad += g;
        }
        EXPECT_GT(scorerGrad, 0) << spec;
        EXPECT_GT(encoderGrad, 0) << spec;
    }
}

TEST(PatchModel, ReinforceMovesThePolicyTowardTheRewardedCell) {
    // A policy over 8 cells; reward 1 for cell 3. REINFORCE with a baseline, 300 seeded steps.
    auto logits = torch::zeros({8}, torch::requires_grad());
    torch::optim::Adam adam({logits}, torch::optim::AdamOptions(0.05));
    MovingAverageBaseline baseline;
    const auto values = torch::zeros({32, 8, 1});
    SelectionOptions rule;
    rule.rule = SelectionRule::Sample;
    Rng rng(11);
    for (int step = 0; step < 300; ++step) {
        const auto s = select(logits.unsqueeze(0).expand({32, 8}), values, rule, rng);
        const auto reward = (s.indices.squeeze(1) == 3).to(torch::kFloat);
        const auto loss = reinforceLoss(s.logProb, reward, torch::tensor(baseline.value()));
        baseline.update(reward.mean().item<double>());
        adam.zero_grad();
        loss.backward();
        adam.step();
    }
    const auto p = torch::softmax(logits.detach(), 0);
    EXPECT_GT(p[3].item<double>(), 0.8) << p;
}

TEST(PatchModel, CheckpointRoundTripGivesIdenticalTraces) {
    TempDir dir;
    const auto path = saveTinyPatch(dir, "tiny.pt");
    auto a = PatchModel::load(path, test::testDevice());
    auto b = PatchModel::load(path, test::testDevice());
    ASSERT_TRUE(a.ok()) << a.error();
    const auto image = digitImage(4);
    for (const char* rule : {"soft", "argmax", "sample"}) {
        const auto ta = (*a)->trace(image, rule, 9, "digit4");
        const auto tb = (*b)->trace(image, rule, 9, "digit4");
        ASSERT_TRUE(ta.ok()) << ta.error();
        EXPECT_EQ(traceToJson(*ta), traceToJson(*tb)) << rule;
        EXPECT_EQ(ta->steps.size(), 3u);
        EXPECT_EQ(ta->steps[0].grid->probs.size(), 49u);
    }
    // The loaded weights are the saved ones: same output as the original module.
    torch::manual_seed(3);
    PatchClassifier original(tinyPatchConfig());
    original->eval();
    Rng rng(1);
    const auto x = torch::from_blob(const_cast<std::uint8_t*>(image.pixels.data()), {1, 1, 28, 28},
                                    torch::kUInt8).to(torch::kFloat) / 255.0;
    const auto expected = torch::softmax(original->forward(x, *parseSelectionRule("soft"), rng).logits, -1);
    const auto t = (*a)->trace(image, "soft", 1, "digit4");
    for (int c = 0; c < 10; ++c) EXPECT_NEAR(t->output.probs[c], expected[0][c].item<float>(), 1e-6);
}

TEST(PatchModel, TracesAreDeterministicPerSeed) {
    TempDir dir;
    auto m = *PatchModel::load(saveTinyPatch(dir, "tiny.pt"), test::testDevice());
    const auto image = digitImage(7);
    EXPECT_EQ(traceToJson(*m->trace(image, "sample", 5, "x")), traceToJson(*m->trace(image, "sample", 5, "x")));
    // An untrained model attends almost uniformly, so other seeds choose other cells.
    int differing = 0;
    for (std::uint64_t seed = 6; seed < 12; ++seed)
        differing += m->trace(image, "sample", seed, "x")->steps[0].chosenCells !=
                     m->trace(image, "sample", 5, "x")->steps[0].chosenCells;
    EXPECT_GE(differing, 4);
    EXPECT_NE(m->trace(Image::zeros(60, 60), "soft", 1, "x").error().find("takes 28x28"), std::string::npos);
}

TEST(PatchModel, KSampleTraceSummarisesItsRuns) {
    TempDir dir;
    auto m = *PatchModel::load(saveTinyPatch(dir, "tiny.pt"), test::testDevice());
    const auto image = digitImage(7);
    const auto k = m->trace(image, "ksample:64", 5, "x");
    ASSERT_TRUE(k.ok()) << k.error();
    EXPECT_EQ(k->rule, "ksample:64");
    EXPECT_EQ(traceToJson(*k), traceToJson(*m->trace(image, "ksample:64", 5, "x")));  // seeded
    // One entry per run, repeats kept, most often drawn first; the untrained model attends
    // almost uniformly over 49 cells, so 64 runs choose many distinct cells.
    const auto& cells = k->steps[0].chosenCells;
    EXPECT_EQ(cells.size(), 64u);
    const std::set<int> distinct(cells.begin(), cells.end());
    EXPECT_GT(distinct.size(), 10u);
    EXPECT_LE(distinct.size(), 49u);
    const auto first = std::count(cells.begin(), cells.end(), cells.front());
    for (int c : distinct) EXPECT_LE(std::count(cells.begin(), cells.end(), c), first);
    // The output is the mean of the runs' class probabilities: between the runs' extremes, and
    // a single run (ksample:1) is the sample rule's run with the same seed.
    double sum = 0;
    for (float p : k->output.probs) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-5);
    const auto one = m->trace(image, "ksample:1", 5, "x");
    const auto sample = m->trace(image, "sample", 5, "x");
    ASSERT_TRUE(one.ok() && sample.ok());
    for (size_t s = 0; s < one->steps.size(); ++s) EXPECT_EQ(one->steps[s].chosenCells, sample->steps[s].chosenCells);
    for (size_t c = 0; c < one->output.probs.size(); ++c) EXPECT_NEAR(one->output.probs[c], sample->output.probs[c], 1e-6);
    EXPECT_FALSE(m->trace(image, "ksample:0", 1, "x").ok());
}

TEST(PatchModel, BadCheckpointsAreRefusedSayingWhy) {
    TempDir dir;
    const auto path = saveTinyPatch(dir, "good.pt");
    // Truncated weights.
    auto bytes = *readFile(path);
    ASSERT_TRUE(writeFileAtomic(dir.file("cut.pt"), bytes.substr(0, bytes.size() / 2)).ok());
    ASSERT_TRUE(writeFileAtomic(dir.file("cut.json"), *readFile(sidecarPath(path))).ok());
    EXPECT_NE(PatchModel::load(dir.file("cut.pt"), test::testDevice()).error().find("truncated"),
              std::string::npos);
    // No sidecar.
    ASSERT_TRUE(writeFileAtomic(dir.file("lonely.pt"), bytes).ok());
    EXPECT_NE(PatchModel::load(dir.file("lonely.pt"), test::testDevice()).error().find("no readable sidecar"),
              std::string::npos);
    // A sidecar whose config does not match the weights.
    auto sidecar = *readFile(sidecarPath(path));
    auto mismatched = sidecar;
    mismatched.replace(mismatched.find("\"feature_dim\": 16"), 17, "\"feature_dim\": 32");
    ASSERT_TRUE(writeFileAtomic(dir.file("shape.pt"), bytes).ok());
    ASSERT_TRUE(writeFileAtomic(dir.file("shape.json"), mismatched).ok());
    EXPECT_NE(PatchModel::load(dir.file("shape.pt"), test::testDevice()).error().find("does not match the model"),
              std::string::npos);
    // Another model type, and a newer format.
    auto ram = sidecar;
    ram.replace(ram.find("\"model_type\": \"patch\""), 21, "\"model_type\": \"ram\"");
    ASSERT_TRUE(writeFileAtomic(dir.file("ram.pt"), bytes).ok());
    ASSERT_TRUE(writeFileAtomic(dir.file("ram.json"), ram).ok());
    EXPECT_NE(PatchModel::load(dir.file("ram.pt"), test::testDevice()).error().find("holds a 'ram' model"),
              std::string::npos);
    auto newer = sidecar;
    newer.replace(newer.find("\"format_version\": 1"), 19, "\"format_version\": 99");
    ASSERT_TRUE(writeFileAtomic(dir.file("new.pt"), bytes).ok());
    ASSERT_TRUE(writeFileAtomic(dir.file("new.json"), newer).ok());
    EXPECT_NE(PatchModel::load(dir.file("new.pt"), test::testDevice()).error().find("format version 99"),
              std::string::npos);
    EXPECT_NE(PatchModel::load(dir.file("absent.pt"), test::testDevice()).error().find("does not exist"),
              std::string::npos);
}

TEST(PatchTrainer, SavesResumesAndStopsCleanly) {
    // A few iterations of a tiny model on procedural digits: the machinery, not a real model.
    TempDir dir;
    PatchTrainOptions o;
    o.dataset = "digits28";
    o.model = tinyPatchConfig(TrainingMode::Hard);
    o.batch = 8;
    o.iterations = 4;
    o.evalEvery = 2;
    o.evalImages = 16;
    o.device = test::testDevice();
    o.out = dir.file("t.pt");
    int calls = 0;
    const auto first = trainPatchModel(o, [&](const TrainProgress& p) {
        ++calls;
        EXPECT_EQ(p.total, 4);
        return true;
    });
    ASSERT_TRUE(first.ok()) << first.error();
    EXPECT_EQ(calls, 4);
    EXPECT_EQ(first->iterations, 4);
    EXPECT_TRUE(fs::exists(dir.file("t.json")));
    EXPECT_TRUE(fs::exists(dir.file("t.metrics.csv")));
    const auto csv = *readFile(dir.file("t.metrics.csv"));
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);  // header + 2 evaluations
    EXPECT_EQ(readCheckpointInfo(dir.file("t.pt"))->iteration, 4);

    PatchTrainOptions resume = o;
    resume.resume = dir.file("t.pt");
    resume.iterations = 6;
    const auto second = trainPatchModel(resume);
    ASSERT_TRUE(second.ok()) << second.error();
    EXPECT_EQ(second->iterations, 6);
    const auto resumedCsv = *readFile(dir.file("t.metrics.csv"));
    EXPECT_EQ(std::count(resumedCsv.begin(), resumedCsv.end(), '\n'), 4);  // + the evaluation at 6

    o.out = dir.file("stopped.pt");
    o.iterations = 100;
    const auto stopped = trainPatchModel(o, [](const TrainProgress& p) { return p.iteration < 3; });
    ASSERT_TRUE(stopped.ok()) << stopped.error();
    EXPECT_TRUE(stopped->cancelled);
    EXPECT_EQ(readCheckpointInfo(dir.file("stopped.pt"))->iteration, 3);
    EXPECT_TRUE(PatchModel::load(dir.file("stopped.pt"), test::testDevice()).ok());
}

TEST(PatchTrainer, CancelAndResumeEqualsAnUninterruptedRun) {
    TempDir dir;
    PatchTrainOptions o;
    o.dataset = "digits28";
    o.model = tinyPatchConfig(TrainingMode::Hard);
    o.batch = 8;
    o.iterations = 6;
    o.evalEvery = 100;
    o.evalImages = 8;
    o.device = test::testDevice();
    o.seed = 5;
    o.out = dir.file("whole.pt");
    ASSERT_TRUE(trainPatchModel(o).ok());
    PatchTrainOptions cut = o;
    cut.out = dir.file("cut.pt");
    const auto stopped = trainPatchModel(cut, [](const TrainProgress& p) { return p.iteration < 3; });
    ASSERT_TRUE(stopped.ok() && stopped->cancelled);
    PatchTrainOptions resume = cut;
    resume.resume = dir.file("cut.pt");
    ASSERT_TRUE(trainPatchModel(resume).ok());
    PatchClassifier whole(tinyPatchConfig(TrainingMode::Hard)), resumed(tinyPatchConfig(TrainingMode::Hard));
    ASSERT_TRUE(loadCheckpointWeights(*whole, nullptr, dir.file("whole.pt")).ok());
    ASSERT_TRUE(loadCheckpointWeights(*resumed, nullptr, dir.file("cut.pt")).ok());
    const auto a = whole->named_parameters(), b = resumed->named_parameters();
    for (const auto& p : a)
        EXPECT_TRUE(torch::allclose(p.value(), b[p.key()], 1e-5, 1e-6)) << p.key();
    EXPECT_EQ(readCheckpointInfo(dir.file("cut.pt"))->baseline, readCheckpointInfo(dir.file("whole.pt"))->baseline);
}

TEST(PatchTrainer, InitFromStartsAtAnotherModesWeights) {
    TempDir dir;
    PatchTrainOptions o;
    o.dataset = "digits28";
    o.model = tinyPatchConfig(TrainingMode::Soft);
    o.batch = 8;
    o.iterations = 2;
    o.evalImages = 16;
    o.device = test::testDevice();
    o.out = dir.file("soft.pt");
    ASSERT_TRUE(trainPatchModel(o).ok());
    // Zero steps of fine-tuning would be a copy; with lr ~0 the weights and so the traces match.
    PatchTrainOptions tune = o;
    tune.model.mode = TrainingMode::Hard;
    tune.initFrom = dir.file("soft.pt");
    tune.lr = 1e-12;
    tune.finalLrFraction = 1;
    tune.iterations = 1;
    tune.out = dir.file("hard.pt");
    const auto tuned = trainPatchModel(tune);
    ASSERT_TRUE(tuned.ok()) << tuned.error();
    EXPECT_EQ(tuned->iterations, 1);  // a fresh schedule, not the soft model's iteration count
    auto soft = PatchModel::load(dir.file("soft.pt"), test::testDevice());
    auto hard = PatchModel::load(dir.file("hard.pt"), test::testDevice());
    ASSERT_TRUE(soft.ok() && hard.ok());
    EXPECT_EQ((*hard)->config().mode, TrainingMode::Hard);
    Image image = Image::zeros(28, 28);
    for (int i = 0; i < 28; ++i) image.at(i, i) = 255;
    const auto a = (*soft)->trace(image, "argmax", 1, "x");
    const auto b = (*hard)->trace(image, "argmax", 1, "x");
    ASSERT_TRUE(a.ok() && b.ok());
    for (size_t s = 0; s < a->steps.size(); ++s) {
        EXPECT_EQ(a->steps[s].chosenCells, b->steps[s].chosenCells);
        for (size_t k = 0; k < a->output.probs.size(); ++k) EXPECT_NEAR(a->output.probs[k], b->output.probs[k], 1e-5);
    }
    // Another architecture is refused, naming the difference.
    PatchTrainOptions other = tune;
    other.model.grid = 14;
    other.out = dir.file("other.pt");
    const auto refused = trainPatchModel(other);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("architecture differs"), std::string::npos) << refused.error();
}

TEST(PatchModel, SelectVariantProcessesOnlyTheChosenCell) {
    auto config = tinyPatchConfig(TrainingMode::Hard);
    config.variant = "select";
    torch::manual_seed(0);
    PatchClassifier net(config);
    const auto x = torch::rand({4, 1, 28, 28});
    // The chosen cell's features are those of its own window: recompute them by hand.
    const auto cells = torch::tensor({0, 10, 24, 48}, torch::kLong);
    const auto features = net->patchFeatures(x, cells);
    const auto all = net->allPatchFeatures(x);
    ASSERT_EQ(all.sizes(), (std::vector<std::int64_t>{4, 49, 16}));
    for (int b = 0; b < 4; ++b)
        EXPECT_TRUE(torch::allclose(features[b], all[b][cells[b].item<std::int64_t>()], 1e-5, 1e-6));
    // A corner cell's window is zero-padded: its top-left 4 x 4 pixels lie outside the image.
    const auto windows = torch::nn::functional::unfold(
        x, torch::nn::functional::UnfoldFuncOptions({12, 12}).padding(4).stride(4));
    EXPECT_EQ(windows[0].select(1, 0).view({12, 12}).narrow(0, 0, 4).abs().sum().item<float>(), 0.0f);
    EXPECT_NEAR(windows[0].select(1, 0).view({12, 12})[4][4].item<float>(), x[0][0][0][0].item<float>(), 1e-7);
    // Every rule runs; gradients reach the cheap scorer through REINFORCE.
    for (const char* spec : {"soft", "sample", "argmax", "gumbel:0.5"}) {
        Rng rng(1);
        const auto out = net->forward(x, *parseSelectionRule(spec), rng);
        EXPECT_EQ(out.logits.sizes(), (std::vector<std::int64_t>{4, 10})) << spec;
    }
    Rng rng(2);
    const auto out = net->forward(x, *parseSelectionRule("sample"), rng);
    reinforceLoss(out.logProb.sum(0), torch::rand({4}), torch::zeros({})).backward();
    double encoderGrad = 0;
    for (const auto& p : net->named_parameters())
        if (p.key().rfind("encoder", 0) == 0 && p.value().grad().defined())
            encoderGrad += p.value().grad().abs().sum().item<double>();
    EXPECT_GT(encoderGrad, 0);
}

TEST(PatchModel, EpisodesOfOneImageEqualARepeatedBatchInBothVariants) {
    // Episodes share their state per distinct path prefix; the result must be what a batch of
    // copies of the image gives with the same stream.
    for (const char* variant : {"dense", "select"}) {
        auto config = tinyPatchConfig(TrainingMode::Hard);
        config.variant = variant;
        torch::manual_seed(3);
        PatchClassifier net(config);
        net->eval();
        torch::NoGradGuard noGrad;
        const auto x = torch::rand({1, 1, 28, 28});
        for (const char* spec : {"sample", "argmax"}) {
            Rng a(11), b(11);
            const auto episodes = net->forward(x, *parseSelectionRule(spec), a, {}, 60);
            const auto batch = net->forward(x.expand({60, 1, 28, 28}).contiguous(), *parseSelectionRule(spec), b);
            EXPECT_TRUE(torch::equal(episodes.indices, batch.indices)) << variant << " " << spec;
            EXPECT_TRUE(torch::allclose(episodes.stepLogits, batch.stepLogits, 1e-4, 1e-5)) << variant << " " << spec;
            EXPECT_TRUE(torch::allclose(episodes.probs, batch.probs, 1e-5, 1e-6)) << variant << " " << spec;
            EXPECT_TRUE(torch::allclose(episodes.logProb, batch.logProb, 1e-4, 1e-5)) << variant << " " << spec;
        }
        // Sampled episodes take different paths.
        Rng c(5);
        const auto out = net->forward(x, *parseSelectionRule("sample"), c, {}, 60);
        EXPECT_GT(std::get<0>(torch::_unique(out.indices[1].squeeze(1))).size(0), 1) << variant;
    }
}
