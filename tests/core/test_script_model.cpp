// Imported TorchScript models: the contract's three forms built in C++ (torch::jit::Module::define,
// so these tests need no Python), every load-time and forward-time check with its message, and
// the transformer maps (raw attention, one head, rollout) against hand-computed values.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "analysis/attribution/attribution.h"
#include "analysis/attribution/map_comparison.h"
#include "data/dataset.h"
#include "data/folder_dataset.h"
#include "data/image_io.h"
#include "models/attention_model.h"
#include "models/model_loading.h"
#include "models/script/script_archive.h"
#include "models/script/script_model.h"
#include "models/cost_profile.h"
#include "models/transformer_maps.h"
#include "peak_model.h"
#include "temp_dir.h"
#include "test_device.h"

namespace saccade {
namespace {

// A module whose forward is `body` (TorchScript source after "def forward(self, x: Tensor)");
// `extra` adds methods; `classes` adds a class_names attribute.
std::string saveModule(const test::TempDir& dir, const std::string& name, const std::string& forward,
                       const std::string& extra = "", const std::vector<std::string>& classes = {},
                       int inputSize = 12, const std::string& returns = "Dict[str, Tensor]") {
    torch::jit::Module m("__torch__.Test");
    if (!classes.empty()) {
        c10::List<std::string> list;
        for (const auto& c : classes) list.push_back(c);
        m.register_attribute("class_names", c10::ListType::ofStrings(), list);
    }
    if (inputSize > 0) m.register_attribute("input_size", c10::IntType::get(), std::int64_t(inputSize));
    m.define("def forward(self, x: Tensor) -> " + returns + ":\n" + forward + extra);
    const auto path = dir.file(name);
    m.save(path);
    return path;
}

// Grid form: 2 steps over a 3x2 grid; the map's weights follow the image's mean brightness so a
// test can tell images apart; 3 classes.
const std::string kGridForward = R"(
    n = x.size(0)
    b = x.mean([1, 2, 3])
    w = torch.stack([b, 1.0 - b, b, 1.0 - b, b, 1.0 - b], 1) / 3.0
    a = torch.stack([w, w.flip([1])], 1).view(n, 2, 3, 2)
    logits = torch.stack([b, 1.0 - b, torch.zeros_like(b)], 1) * 4.0
    return {"logits": logits, "attention": a}
)";

const std::string kGridSampled = R"(
def forward_sampled(self, x: Tensor, seed: int) -> Dict[str, Tensor]:
    torch.manual_seed(seed)
    out = self.forward(x)
    a = out["attention"]
    n = x.size(0)
    chosen = torch.multinomial(a.view(n * 2, 6), 1).view(n, 2)
    noise = torch.rand(n, 3)
    return {"logits": out["logits"] + noise * 8.0, "attention": a, "chosen": chosen}
)";

Image greyImage(int side, std::uint8_t value) {
    Image im = Image::zeros(side, side, 1);
    std::fill(im.pixels.begin(), im.pixels.end(), value);
    return im;
}

Result<std::shared_ptr<AttentionModel>> loadFrom(const std::string& path) { return loadAttentionModel(path, test::testDevice()); }

TEST(ScriptModel, GridFormTracesWhatForwardReturns) {
    test::TempDir dir;
    const auto path = saveModule(dir, "grid.pt", kGridForward, kGridSampled, {"bright", "dark", "never"});
    auto model = loadFrom(path);
    ASSERT_TRUE(model.ok()) << model.error();
    auto& m = **model;
    EXPECT_EQ(m.imageSize(), 12);
    EXPECT_EQ(m.channels(), 1);
    EXPECT_EQ(m.steps(), 2);
    EXPECT_EQ(m.trainedMode(), TrainingMode::Imported);
    EXPECT_EQ(m.deterministicRule(), "forward");
    EXPECT_EQ(m.evaluationRules(), (std::vector<std::string>{"forward", "sample", "ksample:10"}));
    EXPECT_EQ(m.classNames(), (std::vector<std::string>{"bright", "dark", "never"}));

    // Brightness 0.75: cells weigh 0.25 / 0.0833 alternately at step 1, flipped at step 2.
    auto t = m.trace(greyImage(12, 191), "forward", 1, "grey");
    ASSERT_TRUE(t.ok()) << t.error();
    ASSERT_EQ(t->steps.size(), 2u);
    const auto& g = *t->steps[0].grid;
    EXPECT_EQ(g.rows, 3);
    EXPECT_EQ(g.cols, 2);
    const double b = 191.0 / 255.0;
    EXPECT_NEAR(g.probs[0], b / 3, 1e-5);
    EXPECT_NEAR(g.probs[1], (1 - b) / 3, 1e-5);
    EXPECT_NEAR(t->steps[1].grid->probs[0], (1 - b) / 3, 1e-5);
    EXPECT_TRUE(t->steps[0].chosenCells.empty());  // forward chose nothing
    EXPECT_EQ(t->output.text, "bright");
    const double z = std::exp(4 * b) + std::exp(4 * (1 - b)) + 1;
    EXPECT_NEAR(t->output.probs[0], std::exp(4 * b) / z, 1e-5);
    const double entropy = -3 * (b / 3 * std::log(b / 3) + (1 - b) / 3 * std::log((1 - b) / 3));
    EXPECT_NEAR(t->steps[0].entropy, entropy, 1e-5);
}

TEST(ScriptModel, SampledRulesAreSeededAndRepeatable) {
    test::TempDir dir;
    auto model = loadFrom(saveModule(dir, "grid.pt", kGridForward, kGridSampled, {"a", "b", "c"}));
    ASSERT_TRUE(model.ok()) << model.error();
    auto& m = **model;
    const auto image = greyImage(12, 128);
    auto a = m.trace(image, "sample", 5, "x"), b = m.trace(image, "sample", 5, "x"), c = m.trace(image, "sample", 6, "x");
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.error() << b.error() << c.error();
    ASSERT_EQ(a->steps[0].chosenCells.size(), 1u);
    EXPECT_EQ(a->steps[0].chosenCells, b->steps[0].chosenCells);
    EXPECT_EQ(a->output.probs, b->output.probs);
    EXPECT_NE(a->output.probs, c->output.probs);  // the noise on the logits differs by seed
    const int cell = a->steps[0].chosenCells[0];
    EXPECT_NEAR(a->steps[0].logProb, std::log(a->steps[0].grid->probs[size_t(cell)]), 1e-5);

    // ksample:4 keeps every run's cell; run k is the sample trace with seed runSeed(seed, k).
    auto k = m.trace(image, "ksample:4", 5, "x");
    ASSERT_TRUE(k.ok()) << k.error();
    EXPECT_EQ(k->steps[0].chosenCells.size(), 4u);
    std::vector<float> mean(3, 0);
    for (int r = 0; r < 4; ++r) {
        auto run = m.trace(image, "sample", runSeed(5, size_t(r)), "x");
        ASSERT_TRUE(run.ok());
        for (int j = 0; j < 3; ++j) mean[size_t(j)] += run->output.probs[size_t(j)] / 4;
    }
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(k->output.probs[size_t(j)], mean[size_t(j)], 1e-5);

    // The runs of the Runs tab repeat trace(image, "sample", runSeed(seed, i)).
    auto set = m.sampleRuns(image, 20, 9, "x", std::nullopt, 3);
    ASSERT_TRUE(set.ok()) << set.error();
    ASSERT_EQ(set->runs.size(), 20u);
    auto run7 = m.trace(image, "sample", runSeed(9, 7), "x");
    ASSERT_TRUE(run7.ok());
    EXPECT_EQ(set->runs[7].cells[0], run7->steps[0].chosenCells[0]);
    EXPECT_EQ(set->runs[7].label, run7->output.label);
}

TEST(ScriptModel, WithoutForwardSampledTheSampledViewsSaySo) {
    test::TempDir dir;
    auto model = loadFrom(saveModule(dir, "grid.pt", kGridForward, "", {"a", "b", "c"}));
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->evaluationRules(), std::vector<std::string>{"forward"});
    auto t = (*model)->trace(greyImage(12, 1), "sample", 1, "x");
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().find("needs forward_sampled"), std::string::npos) << t.error();
    auto runs = (*model)->sampleRuns(greyImage(12, 1), 5, 1, "x", std::nullopt);
    ASSERT_FALSE(runs.ok());
    EXPECT_NE(runs.error().find("no forward_sampled"), std::string::npos) << runs.error();
    auto wrongSize = (*model)->trace(greyImage(13, 1), "forward", 1, "x");
    EXPECT_FALSE(wrongSize.ok());
}

TEST(ScriptModel, GlimpseFormPlacesCentresAndGaussians) {
    test::TempDir dir;
    const auto path = saveModule(dir, "glimpse.pt", R"(
    n = x.size(0)
    loc = torch.tensor([[0.5, -0.5], [-1.0, 1.0], [0.0, 0.0]]).unsqueeze(0).expand(n, 3, 2)
    return {"logits": torch.zeros(n, 2), "locations": loc, "location_std": torch.full([n, 3, 2], 0.25),
            "glimpse_size": torch.full([n, 3], 0.5)}
)", "", {}, 20);
    auto model = loadFrom(path);
    ASSERT_TRUE(model.ok()) << model.error();
    auto t = (*model)->trace(greyImage(20, 0), "forward", 1, "x");
    ASSERT_TRUE(t.ok()) << t.error();
    ASSERT_EQ(t->steps.size(), 3u);
    EXPECT_DOUBLE_EQ((*t->steps[0].chosenPoint)[0], 15.0);  // (0.5 + 1) / 2 * 20
    EXPECT_DOUBLE_EQ((*t->steps[0].chosenPoint)[1], 5.0);
    EXPECT_DOUBLE_EQ(t->steps[0].gaussian->stdX, 2.5);     // 0.25 * 20 / 2
    ASSERT_EQ(t->steps[0].glimpses.size(), 1u);
    EXPECT_DOUBLE_EQ(t->steps[0].glimpses[0].box.w, 10.0);
    EXPECT_DOUBLE_EQ(t->steps[0].glimpses[0].box.x, 10.0);
    EXPECT_EQ((*model)->classNames(), (std::vector<std::string>{"class 0", "class 1"}));
}

// Transformer maps on a hand-made example: 1 CLS + 2 patches (a 1x2 grid), 2 layers, 2 heads.
TEST(TransformerMaps, AttentionHeadAndRolloutByHand) {
    // Layer 0: head 0 CLS row [0.2, 0.6, 0.2], head 1 [0.4, 0.2, 0.4]; other rows one-hot on self.
    auto a = torch::zeros({2, 2, 3, 3}, torch::kFloat64);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 3; ++i) a[l][h][i][i] = 1.0;
    a[0][0][0] = torch::tensor({0.2, 0.6, 0.2}, torch::kFloat64);
    a[0][1][0] = torch::tensor({0.4, 0.2, 0.4}, torch::kFloat64);
    a[1][0][0] = torch::tensor({0.5, 0.5, 0.0}, torch::kFloat64);
    a[1][1][0] = torch::tensor({0.5, 0.5, 0.0}, torch::kFloat64);
    const TokenGrid grid{1, 2, true};
    auto rule = [](const char* r) { return *parseTransformerRule(r, 2); };

    // Raw attention, layer 0: mean CLS row [0.3, 0.4, 0.3] -> patches [0.4, 0.3] / 0.7.
    auto raw = transformerMaps(a, grid, rule("attention"));
    EXPECT_NEAR(raw[0][0].item<double>(), 0.4 / 0.7, 1e-6);
    EXPECT_NEAR(raw[1][0].item<double>(), 1.0, 1e-6);  // layer 1 looks only at patch 0
    auto head1 = transformerMaps(a, grid, rule("head:1"));
    EXPECT_NEAR(head1[0][0].item<double>(), 0.2 / 0.6, 1e-6);

    // Rollout: A0' = (mean + I) / 2 has CLS row [0.65, 0.2, 0.15]; patch rows stay one-hot.
    // Layer 1: A1' CLS row [0.75, 0.25, 0]; R1 = A1' A0' gives CLS row
    // [0.75 * 0.65, 0.75 * 0.2 + 0.25, 0.75 * 0.15] = [0.4875, 0.4, 0.1125].
    auto roll = transformerMaps(a, grid, rule("rollout"));
    EXPECT_NEAR(roll[0][0].item<double>(), 0.2 / 0.35, 1e-6);
    EXPECT_NEAR(roll[1][0].item<double>(), 0.4 / 0.5125, 1e-6);
    EXPECT_NEAR(roll[1][1].item<double>(), 0.1125 / 0.5125, 1e-6);

    EXPECT_FALSE(parseTransformerRule("head:2", 2).ok());
    EXPECT_FALSE(parseTransformerRule("heads", 2).ok());
    EXPECT_FALSE(parseTransformerRule("head:1x", 2).ok());
}

TEST(TransformerMaps, GridFromTokens) {
    auto cls = tokenGrid(37);
    ASSERT_TRUE(cls.ok());
    EXPECT_EQ(cls->rows, 6);
    EXPECT_EQ(cls->prefix, 1);
    auto plain = tokenGrid(36);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->prefix, 0);
    EXPECT_FALSE(tokenGrid(30).ok());
    auto given = tokenGrid(31, std::pair<int, int>{5, 6});
    ASSERT_TRUE(given.ok());
    EXPECT_EQ(given->prefix, 1);
    EXPECT_FALSE(tokenGrid(33, std::pair<int, int>{5, 6}).ok());

    // CLS plus 4 registers before a 14x14 grid: 201 tokens fit only when the prefix is declared.
    auto inferred = tokenGrid(201);
    ASSERT_FALSE(inferred.ok());
    EXPECT_NE(inferred.error().find("declare prefix_tokens"), std::string::npos) << inferred.error();
    auto registers = tokenGrid(201, std::nullopt, 5, 0);
    ASSERT_TRUE(registers.ok()) << registers.error();
    EXPECT_EQ(registers->rows, 14);
    EXPECT_EQ(registers->prefix, 5);
    EXPECT_EQ(registers->tokens(), 201);
    auto wide = tokenGrid(2 + 6 * 8, std::pair<int, int>{6, 8}, 2, 1);  // CLS and a distillation token
    ASSERT_TRUE(wide.ok()) << wide.error();
    EXPECT_EQ(wide->cols, 8);
    EXPECT_EQ(wide->readout, 1);
    auto tooMany = tokenGrid(10, std::nullopt, 12);
    ASSERT_FALSE(tooMany.ok());
    EXPECT_NE(tooMany.error().find("prefix_tokens 12 leaves no patches of the 10 tokens"), std::string::npos) << tooMany.error();
    EXPECT_FALSE(tokenGrid(201, std::nullopt, 5, 5).ok());  // the read-out must be a prefix token
}

TEST(TransformerMaps, ReadoutTokenAmongRegisters) {
    // 1 layer, 1 head; tokens: CLS, a register, then 2 patches. The CLS row looks at patch 0, the
    // register's row at patch 1; the register columns are dropped.
    auto a = torch::zeros({1, 1, 4, 4}, torch::kFloat32);
    a[0][0][0] = torch::tensor({0.1f, 0.5f, 0.3f, 0.1f});
    a[0][0][1] = torch::tensor({0.2f, 0.2f, 0.15f, 0.45f});
    a[0][0][2][2] = a[0][0][3][3] = 1.0f;
    auto rule = *parseTransformerRule("attention", 1);
    auto byCls = transformerMaps(a, TokenGrid{1, 2, 2, 0}, rule);
    EXPECT_NEAR(byCls[0][0].item<double>(), 0.75, 1e-6);
    auto byRegister = transformerMaps(a, TokenGrid{1, 2, 2, 1}, rule);
    EXPECT_NEAR(byRegister[0][1].item<double>(), 0.75, 1e-6);
    auto rolled = transformerMaps(a, TokenGrid{1, 2, 2, 0}, *parseTransformerRule("rollout", 1));
    // (A + I) / 2 has CLS row [0.55, 0.25, 0.15, 0.05]: patches 0.15 and 0.05 of 0.2.
    EXPECT_NEAR(rolled[0][0].item<double>(), 0.75, 1e-6);
}

TEST(ScriptModel, TransformerFormOneStepPerLayer) {
    test::TempDir dir;
    // 2 layers, 3 heads, 1 CLS + 4 patches: uniform attention everywhere.
    const auto path = saveModule(dir, "vit.pt", R"(
    n = x.size(0)
    return {"logits": torch.zeros(n, 2), "attentions": torch.full([n, 2, 3, 5, 5], 0.2)}
)", "", {"a", "b"}, 8);
    auto model = loadFrom(path);
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->deterministicRule(), "attention");
    EXPECT_EQ((*model)->steps(), 2);
    for (const char* rule : {"attention", "rollout", "head:2"}) {
        auto t = (*model)->trace(greyImage(8, 3), rule, 1, "x");
        ASSERT_TRUE(t.ok()) << t.error();
        ASSERT_EQ(t->steps.size(), 2u);
        EXPECT_EQ(t->steps[1].grid->rows, 2);
        for (float p : t->steps[1].grid->probs) EXPECT_NEAR(p, 0.25, 1e-6);
    }
    auto bad = (*model)->trace(greyImage(8, 3), "head:3", 1, "x");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("3 heads"), std::string::npos) << bad.error();
    auto sampled = (*model)->sampleRuns(greyImage(8, 3), 5, 1, "x", std::nullopt);
    EXPECT_FALSE(sampled.ok());
}

// Each broken module and the words its error must contain.
struct BrokenCase {
    const char* name;
    std::string forward;
    const char* expected;
    std::vector<std::string> classes = {};
    std::string returns = "Dict[str, Tensor]";
};

TEST(ScriptModel, EveryContractViolationIsNamed) {
    test::TempDir dir;
    const std::vector<BrokenCase> cases = {
        {"not_dict", "    return x\n", "not a Dict[str, Tensor]", {}, "Tensor"},
        {"no_logits", "    return {'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n", "no 'logits'"},
        {"no_attention", "    return {'logits': torch.zeros(x.size(0), 3)}\n", "none of 'attention'"},
        {"logits_rank", "    return {'logits': torch.zeros(x.size(0)), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n",
         "expected [N, K] or [N, T, K]"},
        {"attention_rank", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 4, 1], 0.25)}\n",
         "expected [N, T, h, w]"},
        {"int_dtype", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.ones([x.size(0), 1, 1, 1]).long()}\n",
         "expected a floating-point tensor"},
        {"nan", "    return {'logits': torch.full([x.size(0), 3], float('nan')), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n",
         "NaN or inf"},
        {"sum", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 1, 2, 2], 0.3)}\n",
         "sums to 1.2"},
        {"batch", "    return {'logits': torch.zeros(2, 3), 'attention': torch.full([2, 1, 2, 2], 0.25)}\n",
         "2 rows for a batch of 1"},
        {"steps", "    return {'logits': torch.zeros(x.size(0), 3, 3), 'attention': torch.full([x.size(0), 2, 2, 2], 0.25)}\n",
         "has 3 steps; the attention has 2"},
        {"names", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n",
         "class_names has 2 names but 'logits' has 3 classes", {"a", "b"}},
        {"raises", "    assert x.size(1) == 7, 'this model wants 7 channels'\n    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n",
         "forward failed: RuntimeError: AssertionError: this model wants 7 channels"},
        {"tokens", "    return {'logits': torch.zeros(x.size(0), 3), 'attentions': torch.full([x.size(0), 1, 1, 7, 7], 1.0 / 7)}\n",
         "7 tokens are neither"},
        {"zero_steps", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.zeros([x.size(0), 0, 2, 2])}\n",
         "no size may be 0"},
        {"outside", "    return {'logits': torch.zeros(x.size(0), 3), 'locations': torch.full([x.size(0), 2, 2], 1.5)}\n",
         "outside [-1, 1]"},
        // Names reach terminals, HTML, SVG and Qt labels: no terminal sequences, overrides or essays.
        {"escape_name", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n",
         "class name 1 holds the control character U+001B at byte 0", {"cat", "\x1b]0;pwned\x07", "dog"}},
        {"override_name", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n",
         "class name 2 holds the direction override U+202E at byte 3", {"cat", "dog", "abc\u202Edef"}},
        {"long_name", "    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}\n",
         "class name 0 is 100000 bytes long (at most 200)", {std::string(100000, 'x'), "b", "c"}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto model = loadFrom(saveModule(dir, std::string(c.name) + ".pt", c.forward, "", c.classes, 12, c.returns));
        ASSERT_FALSE(model.ok());
        EXPECT_NE(model.error().find(c.expected), std::string::npos) << model.error();
        EXPECT_EQ(model.error().find('\n'), std::string::npos) << model.error();
    }
}

TEST(ScriptModel, FilesThatAreNotModelsAreRefused) {
    test::TempDir dir;
    auto expectError = [](const std::string& path, const std::string& words) {
        auto model = loadFrom(path);
        ASSERT_FALSE(model.ok()) << path;
        EXPECT_NE(model.error().find(words), std::string::npos) << model.error();
        EXPECT_EQ(model.error().find('\n'), std::string::npos) << model.error();
    };
    {
        std::ofstream(dir.file("text.pt")) << "hello, I am not a model";
        expectError(dir.file("text.pt"), "is not a TorchScript model");
    }
    // A valid model cut in half.
    const auto good = saveModule(dir, "good.pt", kGridForward);
    std::string bytes;
    {
        std::ifstream in(good, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::ofstream(dir.file("half.pt"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    expectError(dir.file("half.pt"), "is not a TorchScript model");
    // A module without forward.
    torch::jit::Module empty("__torch__.Empty");
    empty.save(dir.file("empty.pt"));
    expectError(dir.file("empty.pt"), "no forward method");
    expectError(dir.file("missing.pt"), "does not exist");
    expectError(dir.path.string(), "is a folder");
    // A non-square input_size.
    torch::jit::Module wide("__torch__.Wide");
    c10::List<std::int64_t> size({10, 12});
    wide.register_attribute("input_size", c10::ListType::ofInts(), size);
    wide.define("def forward(self, x: Tensor) -> Dict[str, Tensor]:\n" + kGridForward);
    wide.save(dir.file("wide.pt"));
    expectError(dir.file("wide.pt"), "is not square");
}

TEST(ScriptModel, ProbeWithOneMeanTriesEveryShape) {
    test::TempDir dir;
    // A grey 60x60 model with one mean and std and no input_size: the 3-channel tries fail, and
    // the 1-channel ones must still get a 1-channel input.
    torch::jit::Module m("__torch__.Grey");
    m.register_attribute("mean", c10::FloatType::get(), 0.5);
    m.register_attribute("std", c10::FloatType::get(), 0.25);
    m.define(R"(def forward(self, x: Tensor) -> Dict[str, Tensor]:
    assert x.size(2) == 60 and x.size(1) == 1
    return {'logits': torch.stack([x.mean([1, 2, 3]), -x.mean([1, 2, 3])], 1), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}
)");
    m.save(dir.file("grey.pt"));
    auto model = loadFrom(dir.file("grey.pt"));
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->imageSize(), 60);
    EXPECT_EQ((*model)->channels(), 1);
    // The normalisation is applied: a white image reaches forward as (1 - 0.5) / 0.25 = 2.
    auto t = (*model)->trace(greyImage(60, 255), "forward", 1, "x");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_NEAR(t->output.probs[0], 1 / (1 + std::exp(-4.0)), 1e-5);
}

TEST(ScriptModel, AnUnrelatedJsonBesideItDoesNotMakeItACheckpoint) {
    test::TempDir dir;
    const auto path = saveModule(dir, "mine.pt", kGridForward);
    std::ofstream(dir.file("mine.json")) << R"({"notes": "my experiment"})";
    EXPECT_TRUE(isScriptImport(path));
    EXPECT_TRUE(loadFrom(path).ok());
    std::ofstream(dir.file("mine.json")) << R"({"format": "saccade.checkpoint"})";
    EXPECT_FALSE(isScriptImport(path));
}

TEST(ScriptModel, SettingsOfAnUnreadableTypeAreNamed) {
    test::TempDir dir;
    torch::jit::Module m("__torch__.Odd");
    m.register_attribute("class_names", c10::DictType::create(c10::StringType::get(), c10::IntType::get()),
                         c10::impl::GenericDict(c10::StringType::get(), c10::IntType::get()));
    m.define("def forward(self, x: Tensor) -> Dict[str, Tensor]:\n" + kGridForward);
    m.save(dir.file("odd.pt"));
    auto model = loadFrom(dir.file("odd.pt"));
    ASSERT_FALSE(model.ok());
    EXPECT_NE(model.error().find("class_names is of a type"), std::string::npos) << model.error();
}

TEST(TransformerMaps, RolloutWithoutClsMixesTheIdentityAtOnce) {
    // 2 patches, no CLS, 1 layer, 1 head: rows [0.8, 0.2] and [0.6, 0.4]. Raw: the mean row
    // [0.7, 0.3]. Rollout: (A + I) / 2 = rows [0.9, 0.1], [0.3, 0.7]; mean [0.6, 0.4].
    auto a = torch::tensor({0.8, 0.2, 0.6, 0.4}, torch::kFloat64).view({1, 1, 2, 2});
    const TokenGrid grid{1, 2, false};
    auto raw = transformerMaps(a, grid, *parseTransformerRule("attention", 1));
    auto roll = transformerMaps(a, grid, *parseTransformerRule("rollout", 1));
    EXPECT_NEAR(raw[0][0].item<double>(), 0.7, 1e-6);
    EXPECT_NEAR(roll[0][0].item<double>(), 0.6, 1e-6);
}

TEST(ScriptModel, ProbesDatasetSizesWithoutInputSize) {
    test::TempDir dir;
    // Accepts only 60x60 single-channel inputs.
    const auto path = saveModule(dir, "probe.pt", R"(
    assert x.size(2) == 60 and x.size(1) == 1
    return {'logits': torch.zeros(x.size(0), 10), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}
)", "", {}, 0);
    auto model = loadFrom(path);
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->imageSize(), 60);
    EXPECT_EQ((*model)->channels(), 1);
}

TEST(ScriptModel, EvaluatesOnADatasetLikeItsTraces) {
    test::TempDir dir;
    auto model = loadFrom(saveModule(dir, "probe.pt", R"(
    n = x.size(0)
    b = x.mean([1, 2, 3])
    logits = torch.stack([b * float(i) for i in range(10)], 1)
    return {'logits': logits, 'attention': torch.full([n, 1, 2, 2], 0.25)}
)", R"(
def forward_sampled(self, x: Tensor, seed: int) -> Dict[str, Tensor]:
    torch.manual_seed(seed)
    out = self.forward(x)
    return {'logits': torch.rand(x.size(0), 10), 'attention': out['attention']}
)", {}, 28));
    ASSERT_TRUE(model.ok()) << model.error();
    auto data = openDataset("digits28");
    ASSERT_TRUE(data.ok()) << data.error();
    auto report = (*model)->evaluate(**data, Split::Test, {"forward", "sample"}, 12, 3);
    ASSERT_TRUE(report.ok()) << report.error();
    ASSERT_EQ(report->predictions.size(), 2u);
    // Image i under sample is trace(image, "sample", evaluationSeed(seed, i)).
    for (int i : {0, 5, 11}) {
        const auto s = (*data)->sample(Split::Test, i);
        auto t = (*model)->trace(s.image, "sample", evaluationSeed(3, i), "x");
        ASSERT_TRUE(t.ok()) << t.error();
        EXPECT_EQ(report->predictions[1][size_t(i)], t->output.label) << i;
        auto f = (*model)->trace(s.image, "forward", 1, "x");
        ASSERT_TRUE(f.ok()) << f.error();
        EXPECT_EQ(report->predictions[0][size_t(i)], f->output.label) << i;
    }
    auto refused = (*model)->evaluate(**data, Split::Test, {"soft"}, 5, 1);
    EXPECT_FALSE(refused.ok());
}

}  // namespace
}  // namespace saccade

namespace saccade {
namespace {

// An image folder written from digits28's first test images: CLASS/IMAGE.png with the digit names.
TEST(ImageFolder, OpensEvaluatesAndRefusesBrokenLayouts) {
    test::TempDir dir;
    auto digits = openDataset("digits28");
    ASSERT_TRUE(digits.ok()) << digits.error();
    const auto root = dir.path / "folder";
    std::vector<int> labels;
    for (int i = 0; i < 12; ++i) {
        const auto s = (*digits)->sample(Split::Test, i);
        const auto cls = root / ("digit-" + std::to_string(s.label));
        std::filesystem::create_directories(cls);
        ASSERT_TRUE(saveImagePng(s.image, (cls / ("img" + std::to_string(100 + i) + ".png")).string()).ok());
    }
    auto folder = openDataset(root.string());
    ASSERT_TRUE(folder.ok()) << folder.error();
    const auto& info = (*folder)->info();
    EXPECT_EQ(info.width, 28);
    EXPECT_EQ(info.channels, 1);
    EXPECT_EQ(info.testSize, 12);
    ASSERT_GE(info.classNames.size(), 2u);
    // Classes in name order; the first image of the first class is its first file by name.
    const auto first = (*folder)->sample(Split::Test, 0);
    EXPECT_EQ(info.classNames[size_t(first.label)], info.classNames.front());
    EXPECT_EQ(first.image.width, 28);

    // A model evaluates on it like on any dataset.
    auto model = loadAttentionModel(saveModule(dir, "m.pt", R"(
    return {'logits': torch.zeros(x.size(0), 3), 'attention': torch.full([x.size(0), 1, 2, 2], 0.25)}
)", "", {}, 28), test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto report = (*model)->evaluate(**folder, Split::Test, {"forward"}, 0, 1);
    ASSERT_TRUE(report.ok()) << report.error();
    EXPECT_EQ(report->rules[0].n, 12);
    std::int64_t zeros = 0;  // the model always answers class 0
    for (int l : report->labels) zeros += l == 0;
    EXPECT_EQ(report->rules[0].correct, zeros);

    // Given the model's class names, a folder named after a class takes its label, whatever
    // else is there: "seven" and "3" below are digit seven and digit three, in any order.
    const std::vector<std::string> names = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
    const auto named = dir.path / "named";
    std::filesystem::create_directories(named / "seven");
    std::filesystem::create_directories(named / "3");
    ASSERT_TRUE(saveImagePng(first.image, (named / "seven" / "a.png").string()).ok());
    ASSERT_TRUE(saveImagePng(first.image, (named / "3" / "b.png").string()).ok());
    auto byName = openDataset(named.string(), {"", 1, names});
    ASSERT_TRUE(byName.ok()) << byName.error();
    EXPECT_EQ((*byName)->info().classNames, names);
    EXPECT_EQ((*byName)->sample(Split::Test, 0).label, 3);  // "3" sorts before "seven"
    EXPECT_EQ((*byName)->sample(Split::Test, 1).label, 7);
    std::filesystem::create_directories(named / "Seven");  // case does not matter
    ASSERT_TRUE(saveImagePng(first.image, (named / "Seven" / "c.png").string()).ok());
    auto caseless = openDataset(named.string(), {"", 1, names});
    ASSERT_TRUE(caseless.ok()) << caseless.error();
    EXPECT_EQ((*caseless)->sample(Split::Test, 2).label, 7);
    std::filesystem::create_directories(named / "eleven");
    ASSERT_TRUE(saveImagePng(first.image, (named / "eleven" / "d.png").string()).ok());
    auto unknown = openDataset(named.string(), {"", 1, names});
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().find("class folder 'eleven'"), std::string::npos) << unknown.error();

    // Broken layouts: another size, an empty class, a corrupt file, no class folders.
    Image big = Image::zeros(30, 30, 1);
    std::filesystem::create_directories(root / "digit-9x");
    ASSERT_TRUE(saveImagePng(big, (root / "digit-9x" / "odd.png").string()).ok());
    auto sized = openDataset(root.string());
    ASSERT_FALSE(sized.ok());
    EXPECT_NE(sized.error().find("must have the same size"), std::string::npos) << sized.error();
    std::filesystem::remove_all(root / "digit-9x");
    std::filesystem::create_directories(root / "empty");
    auto empty = openDataset(root.string());
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.error().find("holds no PNG"), std::string::npos) << empty.error();
    std::filesystem::remove_all(root / "empty");
    std::filesystem::create_directories(root / "zz");
    std::ofstream((root / "zz" / "broken.png").string()) << "not a png";
    auto corrupt = openDataset(root.string());
    ASSERT_FALSE(corrupt.ok());
    EXPECT_NE(corrupt.error().find("broken.png"), std::string::npos) << corrupt.error();
    std::filesystem::create_directories(dir.path / "flat");
    auto flat = openDataset((dir.path / "flat").string());
    ASSERT_FALSE(flat.ok());
    EXPECT_NE(flat.error().find("one subfolder per class"), std::string::npos) << flat.error();
}

// Gradients through TorchScript (issue 51): kGridForward's logit 0 is 4 x the image's mean, so
// its gradient is 4 / 144 at every pixel of a 12x12 image, and integrated gradients from black
// sum to exactly f(x) - f(black) = 4 b.
TEST(ScriptGradients, EveryGradientMethodReachesTheImage) {
    test::TempDir dir;
    auto model = loadFrom(saveModule(dir, "grid.pt", kGridForward, "", {"bright", "dark", "never"}));
    ASSERT_TRUE(model.ok()) << model.error();
    const double b = 191.0 / 255.0;
    AttributionOptions o;
    o.target = 0;
    o.method = "gradient";
    auto g = attribute(**model, greyImage(12, 191), o);
    ASSERT_TRUE(g.ok()) << g.error();
    ASSERT_EQ(g->magnitude.size(), 144u);
    for (double v : g->magnitude) ASSERT_NEAR(v, 4.0 / 144, 1e-6);
    o.method = "integrated-gradients";
    auto ig = attribute(**model, greyImage(12, 191), o);
    ASSERT_TRUE(ig.ok()) << ig.error();
    EXPECT_NEAR(*ig->attributionSum, 4 * b, 1e-4);
    EXPECT_NEAR(*ig->fInput - *ig->fBaseline, 4 * b, 1e-5);
    EXPECT_LT(*ig->completenessError, 1e-4);
    for (const char* method : {"gradient-x-input", "smoothgrad"}) {
        o.method = method;
        auto m = attribute(**model, greyImage(12, 191), o);
        ASSERT_TRUE(m.ok()) << method << ": " << m.error();
    }
    o.method = "gradcam";  // no `features`: refused, saying what the contract would need
    EXPECT_EQ(attribute(**model, greyImage(12, 191), o).error(),
              "imported TorchScript model, grid form has no convolutional grid for Grad-CAM (forward returns no "
              "'features' [N, C, h, w])");
}

// Grad-CAM on `features`: logits are 4 x the mean of the features, which are the image itself,
// so each position's weight is 4 / 144 and the map is the image, rectified.
TEST(ScriptGradients, GradCamReadsTheFeaturesOutput) {
    test::TempDir dir;
    const std::string forward = R"(
    n = x.size(0)
    b = x.mean([1, 2, 3])
    a = torch.ones(n, 1, 3, 2) / 6.0
    logits = torch.stack([b, 1.0 - b], 1) * 4.0
    return {"logits": logits, "attention": a, "features": x}
)";
    auto model = loadFrom(saveModule(dir, "features.pt", forward));
    ASSERT_TRUE(model.ok()) << model.error();
    Image left = Image::zeros(12, 12, 1);
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 6; ++x) left.at(x, y) = 255;
    AttributionOptions o;
    o.method = "gradcam";
    o.target = 0;
    o.cellsPerSide = 2;
    auto cam = attribute(**model, left, o);
    ASSERT_TRUE(cam.ok()) << cam.error();
    ASSERT_EQ(cam->cells.size(), 4u);
    EXPECT_NEAR(cam->cells[0] + cam->cells[2], 1.0, 1e-6);  // all of it on the bright left half
    EXPECT_NEAR(cam->cells[0], 0.5, 1e-6);
}

TEST(ScriptGradients, LogitsThatDoNotReachTheImageAreOneTrueLine) {
    test::TempDir dir;
    const std::string forward = R"(
    n = x.size(0)
    b = x.detach().mean([1, 2, 3])
    a = torch.ones(n, 1, 3, 2) / 6.0
    return {"logits": torch.stack([b, 1.0 - b], 1), "attention": a}
)";
    const auto path = saveModule(dir, "detached.pt", forward);
    auto model = loadFrom(path);
    ASSERT_TRUE(model.ok()) << model.error();
    AttributionOptions o;
    o.method = "gradient";
    const auto error = attribute(**model, greyImage(12, 100), o).error();
    EXPECT_NE(error.find("its logits do not depend on the image through operations autograd can follow"), std::string::npos)
        << error;
    EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(ScriptModel, ExactlyUniformOutputsWarn) {
    test::TempDir dir;
    const std::string uniform = R"(
    n = x.size(0)
    return {"logits": torch.zeros(n, 4), "attention": torch.ones(n, 1, 3, 2) / 6.0}
)";
    auto flat = loadFrom(saveModule(dir, "uniform.pt", uniform));
    ASSERT_TRUE(flat.ok()) << flat.error();
    EXPECT_NE((*flat)->warning().find("gives every class exactly the same logit"), std::string::npos);
    auto grid = loadFrom(saveModule(dir, "grid.pt", kGridForward));
    ASSERT_TRUE(grid.ok()) << grid.error();
    EXPECT_EQ((*grid)->warning(), "");
}

// A map the model cannot give leaves its row out of the table with the reason; the rest are measured.
TEST(ScriptGradients, MapTableLeavesOutWhatTheModelCannotGive) {
    test::TempDir dir;
    const std::string square = R"(
    n = x.size(0)
    b = x.mean([1, 2, 3])
    a = torch.stack([b, 1.0 - b, b, 1.0 - b], 1).view(n, 1, 2, 2) / 2.0
    return {"logits": torch.stack([b, 1.0 - b], 1) * 4.0, "attention": a}
)";
    auto model = loadFrom(saveModule(dir, "square.pt", square, "", {"left", "right"}));
    ASSERT_TRUE(model.ok()) << model.error();
    test::SquareDataset data(/*boxes=*/true, 2);
    MapComparisonOptions o;
    o.methods = {"attention", "gradient", "gradcam", "rollout"};
    o.limit = 2;
    o.sanityImages = 0;
    o.curvePoints = 4;
    auto r = compareMaps(**model, data, Split::Test, o);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_EQ(r->maps.size(), 2u);
    EXPECT_EQ(r->maps[0].method, "attention");
    EXPECT_EQ(r->maps[1].method, "gradient");
    ASSERT_EQ(r->omitted.size(), 2u);
    EXPECT_EQ(r->omitted[0].first, "gradcam");
    EXPECT_EQ(r->omitted[1].second, "imported TorchScript model, grid form has no rollout (it is not a transformer)");
    o.methods = {"gradcam"};  // nothing left: the one reason is the error
    EXPECT_FALSE(compareMaps(**model, data, Split::Test, o).ok());
}

// Cost of an import from its graph: grid_attention.pt's convolutions (1->32 at 60x60, 32->64 at
// 30x30, 3x3) and, per step, its query (64x64), scores (36x64), GRU cell (2 x 64x192) and head
// (64x10): 17,720,448 multiply-adds, all of which its attention depends on but the head's.
TEST(ScriptCost, CountsAnImportsFlopsFromItsGraph) {
    CostOptions o;
    o.model = std::string(SACCADE_SAMPLES_DIR) + "/torchscript/grid_attention.pt";
    o.batch = 2;
    o.repeats = 1;
    o.device = "cpu";
    auto r = profileCost(o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->modelType, "torchscript");
    ASSERT_EQ(r->rules.size(), 1u);
    const auto& c = r->rules[0];
    ASSERT_EQ(c.stages.size(), 2u);
    EXPECT_EQ(c.stages[0].stage, "up to 'attention'");
    EXPECT_NEAR(c.mflopsPerImage, 2 * 17720448 / 1e6, 1e-6);
    EXPECT_NEAR(c.stages[0].mflopsPerImage + c.stages[1].mflopsPerImage, c.mflopsPerImage, 1e-9);
    EXPECT_GT(c.stages[0].msPerImage, 0);
    o.model = std::string(SACCADE_SAMPLES_DIR) + "/torchscript/sat_captioner.pt";
    EXPECT_NE(profileCost(o).error().find("an imported captioner makes its attention word by word"), std::string::npos);
}

// A captioner's photos (issue 51): its "classes" are words, so folder names are not checked against
// them and one subfolder is enough; a classifier's are, and the folder is a sweep's object source.
TEST(ImageFolder, CaptionersTakeAnyFolderAndSweepsMoveItsPhotos) {
    test::TempDir dir;
    auto digits = openDataset("digits28");
    ASSERT_TRUE(digits.ok()) << digits.error();
    const auto root = dir.path / "holiday";
    std::filesystem::create_directories(root / "beach");
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(saveImagePng((*digits)->sample(Split::Test, i).image, (root / "beach" / ("p" + std::to_string(i) + ".png")).string()).ok());
    const std::vector<std::string> vocabulary{"<end>", "a", "red", "circle"};
    EXPECT_NE(openImageFolder(root.string(), vocabulary).error().find("names none of the model's classes"), std::string::npos);
    auto photos = openImageFolder(root.string(), vocabulary, {}, /*unlabelled=*/true);
    ASSERT_TRUE(photos.ok()) << photos.error();
    EXPECT_EQ((*photos)->info().testSize, 3);
    const ObjectSource* source = (*photos)->objectSource();
    ASSERT_NE(source, nullptr);
    EXPECT_EQ(source->size(Split::Test), 3);
    const Image item = source->image(Split::Test, 1);
    EXPECT_EQ(item.channels, 1);
    EXPECT_EQ(item.pixels, (*digits)->sample(Split::Test, 1).image.pixels);
}

}  // namespace
}  // namespace saccade

TEST(ScriptModel, AFileFromANewerPyTorchIsNamedAsSuchWithBothVersions) {
    // tests/data/torch2/sdpa_import.pt was scripted by PyTorch 2.15 and calls
    // aten::scaled_dot_product_attention (tests/data/torch2/make_sdpa_import.py re-creates it).
    const std::string path = SACCADE_SAMPLES_DIR "/../tests/data/torch2/sdpa_import.pt";
    auto archive = openScriptArchive(path, "cpu");
#if TORCH_VERSION_MAJOR < 2
    ASSERT_FALSE(archive);
    EXPECT_EQ(archive.error(), "'" + path + "' calls aten::scaled_dot_product_attention, which this Saccade's LibTorch " +
                                   std::string(TORCH_VERSION) +
                                   " does not have: the file was saved by a newer PyTorch (2.x). Export it with "
                                   "torch.jit.trace instead of torch.jit.script, or without that operator (timm: "
                                   "timm.layers.set_fused_attn(False)), or open it with Saccade built on LibTorch 2.x "
                                   "(Debian 13)");
#else
    EXPECT_TRUE(archive) << archive.error();  // LibTorch 2.x has the operator
#endif
}

TEST(ScriptModel, ALibraryMessageThatStartsWithANewlineIsSaidByItsFirstWords) {
    EXPECT_EQ(firstLine("\nUnknown builtin op: aten::x.\nHere are some suggestions:"), "Unknown builtin op: aten::x.");
    EXPECT_EQ(firstLine(" \n\n"), "");
}
