// Imported TorchScript captioners (docs/model-contract.md, "Captioners"): a module with
// caption(image, max_len) built in C++ (torch::jit::Module::define, so no Python is needed), its
// trace word by word with the maps, its evaluation on scenes64, and each bad-input case with its
// one-line error.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/script.h>
#include <torch/torch.h>

#include "data/dataset.h"
#include "models/attention_model.h"
#include "models/script/script_captioner.h"
#include "temp_dir.h"
#include "test_device.h"

namespace saccade {
namespace {

const std::vector<std::string> kWords = {"<start>", "<end>", "a", "red", "circle"};

struct CaptionerSpec {
    std::string body;                          // the method's body, after its def line
    std::string def = "def caption(self, x: Tensor, max_len: int) -> Dict[str, Tensor]:";
    std::optional<std::vector<std::string>> vocabulary = kWords;
    std::optional<std::int64_t> endToken = 1;
    int inputSize = 8;
    bool rgb = false;                          // input_size [3, S, S] instead of S
    std::string dataset;                       // a dataset attribute when not empty
    std::string extra;                         // more methods
};

std::string saveCaptioner(const test::TempDir& dir, const std::string& name, const CaptionerSpec& spec) {
    torch::jit::Module m("__torch__.Captioner");
    if (spec.vocabulary) {
        c10::List<std::string> list;
        for (const auto& w : *spec.vocabulary) list.push_back(w);
        m.register_attribute("vocabulary", c10::ListType::ofStrings(), list);
    }
    if (!spec.dataset.empty()) m.register_attribute("dataset", c10::StringType::get(), spec.dataset);
    if (spec.endToken) m.register_attribute("end_token", c10::IntType::get(), *spec.endToken);
    if (spec.inputSize > 0 && spec.rgb) {
        c10::List<std::int64_t> shape({3, spec.inputSize, spec.inputSize});
        m.register_attribute("input_size", c10::ListType::ofInts(), shape);
    } else if (spec.inputSize > 0) {
        m.register_attribute("input_size", c10::IntType::get(), std::int64_t(spec.inputSize));
    }
    m.define(spec.def + "\n" + spec.body + spec.extra);
    const auto path = dir.file(name);
    m.save(path);
    return path;
}

// "a red circle <end> a": step s attends to cell s % 4 of a 2x2 grid, and chose it.
const std::string kGoodBody = R"(
    n = x.size(0)
    tokens = torch.tensor([[2, 3, 4, 1, 2]]).repeat(n, 1)
    cells = torch.tensor([0, 1, 2, 3, 0])
    a = torch.eye(4).index_select(0, cells).view(1, 5, 2, 2).repeat(n, 1, 1, 1)
    return {"tokens": tokens, "attention": a, "chosen": cells.view(1, 5).repeat(n, 1)}
)";

std::string withLine(const std::string& body, const std::string& from, const std::string& to) {
    auto s = body;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

Image captionerImage(int side, std::uint8_t value) {
    Image im = Image::zeros(side, side, 1);
    std::fill(im.pixels.begin(), im.pixels.end(), value);
    return im;
}

TEST(ScriptCaptioner, TracesWordByWordWithTheMaps) {
    test::TempDir dir;
    const auto path = saveCaptioner(dir, "cap.pt", {kGoodBody});
    auto model = loadAttentionModel(path, test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto& m = **model;
    EXPECT_EQ(m.outputKind(), OutputKind::Caption);
    EXPECT_EQ(m.classNames(), kWords);
    EXPECT_EQ(m.imageSize(), 8);
    EXPECT_EQ(m.deterministicRule(), "caption");
    auto t = m.trace(captionerImage(8, 100), "caption", 0, "grey");
    ASSERT_TRUE(t.ok()) << t.error();
    ASSERT_EQ(t->steps.size(), 4u);  // up to and including <end>
    EXPECT_EQ(t->steps[0].token, "a");
    EXPECT_EQ(t->steps[2].token, "circle");
    EXPECT_EQ(t->steps[3].token, "<end>");
    EXPECT_EQ(t->output.text, "a red circle");
    for (std::size_t s = 0; s < 4; ++s) {
        ASSERT_TRUE(t->steps[s].grid.has_value());
        EXPECT_EQ(t->steps[s].grid->rows, 2);
        EXPECT_FLOAT_EQ(t->steps[s].grid->probs[s], 1.0f);
        ASSERT_EQ(t->steps[s].chosenCells.size(), 1u);
        EXPECT_EQ(t->steps[s].chosenCells[0], int(s));
    }
    auto bad = m.trace(captionerImage(8, 100), "sample", 0, "grey");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("caption_sampled"), std::string::npos) << bad.error();
}

TEST(ScriptCaptioner, WithoutEndTokenEveryStepIsAWord) {
    test::TempDir dir;
    CaptionerSpec spec{kGoodBody};
    spec.endToken.reset();
    auto model = ScriptCaptioner::load(saveCaptioner(dir, "noend.pt", spec), test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto t = (*model)->trace(captionerImage(8, 0), "caption", 0, "grey");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->steps.size(), 5u);
    EXPECT_EQ(t->output.text, "a red circle <end> a");
}

TEST(ScriptCaptioner, SampledCaptionGivesTheSampleRule) {
    test::TempDir dir;
    CaptionerSpec spec{kGoodBody};
    spec.extra = R"(
def caption_sampled(self, x: Tensor, max_len: int, seed: int) -> Dict[str, Tensor]:
    torch.manual_seed(seed)
    return self.caption(x, max_len)
)";
    auto model = loadAttentionModel(saveCaptioner(dir, "sampled.pt", spec), test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->evaluationRules(), (std::vector<std::string>{"caption", "sample"}));
    auto t = (*model)->trace(captionerImage(8, 0), "sample", 3, "grey");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->output.text, "a red circle");
}

TEST(ScriptCaptioner, EvaluatesBleuOnScenes) {
    test::TempDir dir;
    CaptionerSpec spec{kGoodBody};
    spec.inputSize = 64;
    spec.rgb = true;
    auto model = loadAttentionModel(saveCaptioner(dir, "scenes.pt", spec), test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("scenes64");
    ASSERT_TRUE(dataset.ok()) << dataset.error();
    auto report = (*model)->evaluate(**dataset, Split::Test, {"caption"}, 20, 1);
    ASSERT_TRUE(report.ok()) << report.error();
    EXPECT_EQ(report->outputKind, OutputKind::Caption);
    ASSERT_EQ(report->captions.size(), 1u);
    EXPECT_GT(report->captions[0].bleu[0], 0.0);  // "a" is in every reference
    EXPECT_LE(report->captions[0].bleu[0], 1.0);
    EXPECT_EQ(report->predictions[0].size(), 20u);
    // Per object size: the scenes' objects are counted, and "a red circle" names none of them in
    // full (no size word); its words are not grounded, so their attention is not measured.
    ASSERT_EQ(report->captions[0].bySize.size(), 2u);
    std::int64_t objects = 0;
    for (const auto& z : report->captions[0].bySize) {
        EXPECT_EQ(z.named, 0) << z.size;
        EXPECT_EQ(z.words, 0) << z.size;
        objects += z.objects;
    }
    EXPECT_GE(objects, 40);  // 2-4 objects in each of 20 scenes
    const auto json = nlohmann::json::parse(evalReportToJson(*report));
    EXPECT_TRUE(json["by_object_size"]["small"]["hit_rate"].is_null());
    EXPECT_DOUBLE_EQ(json["by_object_size"]["small"]["named_rate"].get<double>(), 0.0);
}

struct BadCase {
    std::string name;
    CaptionerSpec spec;
    std::string expected;
};

TEST(ScriptCaptioner, EachBadInputIsOneLine) {
    std::vector<BadCase> cases;
    {
        CaptionerSpec s{"    return {'tokens': torch.zeros(1, 1)}\n"};
        s.def = "def caption(self, x: Tensor) -> Dict[str, Tensor]:";
        cases.push_back({"signature", s, "must be caption(image: Tensor, max_len: int) -> Dict[str, Tensor], not"});
    }
    {
        CaptionerSpec s{"    return x\n"};
        s.def = "def caption(self, x: Tensor, max_len: int) -> Tensor:";
        cases.push_back({"returns", s, "must be caption(image: Tensor, max_len: int) -> Dict[str, Tensor]"});
    }
    cases.push_back({"float_tokens",
                     {withLine(kGoodBody, "2]]).repeat(n, 1)", "2]]).float().repeat(n, 1)")},
                     "'tokens' must be int64, not Float"});
    cases.push_back({"no_attention",
                     {withLine(kGoodBody, "\"attention\": a,", "")}, "returned no 'attention'"});
    cases.push_back({"sum", {withLine(kGoodBody, "\"attention\": a,", "\"attention\": a * 2.0,")}, "sums to 2"});
    cases.push_back({"rank", {withLine(kGoodBody, "\"attention\": a,", "\"attention\": a.flatten(2),")},
                     "'attention' must be [N, T, h, w]"});
    cases.push_back({"chosen", {withLine(kGoodBody, "cells.view(1, 5)", "(cells + 6).view(1, 5)")},
                     "'chosen' holds cell 9, outside the 2x2 grid"});
    cases.push_back({"token_id", {withLine(kGoodBody, "[[2, 3, 4, 1, 2]]", "[[2, 3, 7, 1, 2]]")},
                     "hold id 7, outside the vocabulary of 5 words"});
    {
        CaptionerSpec s{kGoodBody};
        s.vocabulary.reset();
        cases.push_back({"no_vocabulary", s, "no attribute vocabulary: List[str]"});
    }
    {
        CaptionerSpec s{kGoodBody};
        s.vocabulary = std::vector<std::string>{};
        cases.push_back({"empty_vocabulary", s, "its vocabulary is empty"});
    }
    {
        CaptionerSpec s{kGoodBody};
        s.endToken = 9;
        cases.push_back({"end_token", s, "end_token 9 is outside the vocabulary of 5 words"});
    }
    {
        CaptionerSpec s{kGoodBody};
        s.dataset = "scenes65";
        cases.push_back({"dataset", s, "its dataset 'scenes65' is not one of Saccade's datasets"});
    }
    test::TempDir dir;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto model = loadAttentionModel(saveCaptioner(dir, c.name + ".pt", c.spec), test::testDevice());
        ASSERT_FALSE(model.ok());
        EXPECT_NE(model.error().find(c.expected), std::string::npos) << model.error();
        EXPECT_EQ(model.error().find('\n'), std::string::npos) << model.error();
    }
}

TEST(ScriptCaptioner, VocabularyOfNumbersIsRefused) {
    test::TempDir dir;
    torch::jit::Module m("__torch__.Captioner");
    c10::List<std::int64_t> numbers({1, 2});
    m.register_attribute("vocabulary", c10::ListType::ofInts(), numbers);
    m.register_attribute("input_size", c10::IntType::get(), std::int64_t(8));
    m.define("def caption(self, x: Tensor, max_len: int) -> Dict[str, Tensor]:\n" + kGoodBody);
    const auto path = dir.file("ints.pt");
    m.save(path);
    auto model = loadAttentionModel(path, test::testDevice());
    ASSERT_FALSE(model.ok());
    EXPECT_NE(model.error().find("vocabulary must be a List[str]"), std::string::npos) << model.error();
}

}  // namespace
}  // namespace saccade
