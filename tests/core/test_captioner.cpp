// The Show-Attend-Tell captioner: network shapes, seeded decoding, batched runs equal to single
// runs, beam search, caption encoding and grounding, rules, and the trainer-to-model path.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "data/batch.h"
#include "analysis/attribution/caption_faithfulness.h"
#include "analysis/runs/caption_sweep.h"
#include "analysis/shards/shard_merge.h"
#include "data/dataset.h"
#include "io/checkpoint.h"
#include "data/procedural_scenes.h"
#include "models/caption/caption_data.h"
#include "models/caption/caption_eval.h"
#include "models/caption/caption_model.h"
#include "models/caption/caption_network.h"
#include "temp_dir.h"
#include "trace/run_set.h"
#include "models/caption/caption_trainer.h"
#include "test_device.h"

using namespace saccade;

namespace {

CaptionConfig tinyConfig() {
    CaptionConfig c;
    c.imageSize = 32;
    c.grid = 4;
    c.featureDim = 16;
    c.embed = 8;
    c.hidden = 16;
    c.attnHidden = 8;
    c.maxLength = 8;
    c.vocabulary = sceneVocabulary();
    return c;
}

CaptionNetwork tinyNet() {
    torch::manual_seed(3);
    CaptionNetwork net(tinyConfig());
    net->eval();
    return net;
}

// A tiny captioner training on scenes64, on the CPU, evaluated once at the end.
CaptionTrainOptions tinyTraining(const std::string& out, std::int64_t iterations, std::int64_t evalImages = 2) {
    CaptionTrainOptions o;
    o.model.featureDim = 16;
    o.model.embed = 8;
    o.model.hidden = 16;
    o.model.attnHidden = 8;
    o.batch = 4;
    o.iterations = iterations;
    o.evalEvery = iterations;
    o.evalImages = evalImages;
    o.device = test::testDevice();
    o.out = out;
    return o;
}

// Every iteration's progress (the training figures, evaluated or not).
std::vector<TrainProgress> trainRecording(const CaptionTrainOptions& o) {
    std::vector<TrainProgress> steps;
    auto summary = trainCaptionModel(o, [&](const TrainProgress& p) {
        steps.push_back(p);
        return true;
    });
    EXPECT_TRUE(summary.ok()) << summary.error();
    return steps;
}

}  // namespace

TEST(Captioner, TeacherForcingGivesAWordAndADistributionPerStep) {
    auto net = tinyNet();
    const auto images = torch::rand({3, 3, 32, 32});
    // Three lengths, the shortest first: the batch shrinks as captions end, rows sorted inside.
    const auto tokens = torch::tensor({{0, 4, 1, 2, 2, 2}, {0, 4, 5, 6, 7, 1}, {0, 4, 5, 1, 2, 2}}, torch::kLong);
    Rng rng(1);
    SelectionOptions soft;
    const auto annotations = net->encode(images).detach();  // the decoder's gradients are compared below
    const auto out = net->teacherForced(annotations, tokens, soft, rng);
    EXPECT_EQ(out.wordLogits.sizes(), (std::vector<std::int64_t>{5, 3, std::int64_t(sceneVocabulary().size())}));
    EXPECT_EQ(out.probs.sizes(), (std::vector<std::int64_t>{5, 3, 16}));
    // A distribution at every step with a word to predict, zeros past the row's end.
    const auto speaking = (tokens.narrow(1, 1, 5) != kPadToken).t().to(torch::kFloat);
    EXPECT_TRUE(torch::allclose(out.probs.sum(-1), speaking, 1e-5, 1e-5));
    EXPECT_EQ(out.wordLogits[2][0].abs().max().item<float>(), 0.0f);
    // Each row as it would be alone, in the caller's order, and the same gradients.
    const auto weights = torch::randn(out.wordLogits.sizes()) * speaking.unsqueeze(2);
    net->zero_grad();
    (out.wordLogits * weights).sum().backward();
    std::vector<torch::Tensor> batchGrads;
    for (const auto& p : net->parameters()) batchGrads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    net->zero_grad();
    for (std::int64_t b = 0; b < 3; ++b) {
        const auto alone = net->teacherForced(annotations.narrow(0, b, 1), tokens.narrow(0, b, 1), soft, rng);
        const auto steps = speaking.select(1, b).sum().item<std::int64_t>();
        auto same = [&](const torch::Tensor& single, const torch::Tensor& batch) {
            return torch::allclose(single.narrow(0, 0, steps).select(1, 0), batch.narrow(0, 0, steps).select(1, b), 1e-5, 1e-5);
        };
        EXPECT_TRUE(same(alone.wordLogits, out.wordLogits)) << b;
        EXPECT_TRUE(same(alone.probs, out.probs)) << b;
        EXPECT_TRUE(same(alone.entropy, out.entropy)) << b;
        (alone.wordLogits * weights.narrow(1, b, 1)).sum().backward();
    }
    const auto params = net->parameters();
    for (std::size_t i = 0; i < params.size(); ++i) {
        const auto alone = params[i].grad().defined() ? params[i].grad() : torch::zeros_like(params[i]);
        EXPECT_TRUE(torch::allclose(alone, batchGrads[i], 1e-4, 1e-5)) << "parameter " << i;
    }
    // The cell's weight gradients deferred to one product equal plain autograd's, and are not zero.
    net->setDeferredWeightGrads(false);
    net->zero_grad();
    (net->teacherForced(annotations, tokens, soft, rng).wordLogits * weights).sum().backward();
    net->setDeferredWeightGrads(true);
    for (std::size_t i = 0; i < params.size(); ++i) {
        const auto plain = params[i].grad().defined() ? params[i].grad() : torch::zeros_like(params[i]);
        EXPECT_TRUE(torch::allclose(plain, batchGrads[i], 1e-4, 1e-5)) << "parameter " << i;
    }
    for (const auto& item : net->named_parameters()) {
        if (item.key().find("rnn.weight") == std::string::npos) continue;
        EXPECT_GT(item.value().grad().abs().sum().item<double>(), 0.0) << item.key();
    }
    // The expectation mix follows its rows through the sort.
    SelectionOptions sample;
    sample.rule = SelectionRule::Sample;
    const auto mix = torch::tensor({true, false, true});
    const auto mixed = net->teacherForced(annotations, tokens, sample, rng, mix);
    const auto expected = net->teacherForced(annotations, tokens, soft, rng);
    EXPECT_TRUE(torch::allclose(mixed.wordLogits.select(1, 0), expected.wordLogits.select(1, 0), 1e-5, 1e-5));
    EXPECT_TRUE(torch::allclose(mixed.wordLogits.select(1, 2), expected.wordLogits.select(1, 2), 1e-5, 1e-5));
    EXPECT_EQ(mixed.indices.size(2), 1);
    // No images: no rows, every step still shaped.
    const auto none = net->teacherForced(annotations.narrow(0, 0, 0), tokens.narrow(0, 0, 0), soft, rng);
    EXPECT_EQ(none.wordLogits.sizes(), (std::vector<std::int64_t>{5, 0, std::int64_t(sceneVocabulary().size())}));
}

TEST(Captioner, EpisodesOfOneImageEqualSeparateSeededRuns) {
    auto net = tinyNet();
    torch::NoGradGuard noGrad;
    const auto annotations = net->encode(torch::rand({1, 3, 32, 32}));
    SelectionOptions sample;
    sample.rule = SelectionRule::Sample;
    const std::vector<std::uint64_t> seeds = {11, 12, 13, 14};
    auto rows = Rng::perRow(seeds);
    const auto batched = net->decode(annotations, sample, rows, 0, nullptr, 4);
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        Rng one(seeds[i]);
        const auto single = net->decode(annotations, sample, one);
        const auto T = single.tokens.size(1);
        EXPECT_TRUE(torch::equal(single.tokens[0], batched.tokens[std::int64_t(i)].narrow(0, 0, T))) << "run " << i;
        EXPECT_TRUE(torch::equal(single.steps.indices.select(1, 0),
                                 batched.steps.indices.select(1, std::int64_t(i)).narrow(0, 0, T)));
    }
    // The same seed repeats, another seed differs somewhere over four runs.
    auto again = Rng::perRow(seeds);
    EXPECT_TRUE(torch::equal(batched.steps.indices, net->decode(annotations, sample, again, 0, nullptr, 4).steps.indices));
}

TEST(Captioner, LocalEncoderCellsSeeOnlyTheirOwnNeighbourhood) {
    // 64 px, grid 8: cell (r, c) covers pixels [8c, 8c + 8). Repaint the block x, y >= 40.
    CaptionConfig config = tinyConfig();
    config.imageSize = 64;
    config.grid = 8;
    torch::NoGradGuard noGrad;
    const auto images = torch::rand({1, 3, 64, 64});
    auto changed = images.clone();
    changed.index_put_({0, torch::indexing::Slice(), torch::indexing::Slice(40, 64), torch::indexing::Slice(40, 64)},
                       torch::rand({3, 24, 24}));
    auto cellsMoved = [&](const std::string& encoder) {
        config.encoder = encoder;
        torch::manual_seed(5);
        CaptionNetwork net(config);
        net->eval();
        const auto moved = (net->encode(images) - net->encode(changed)).abs().amax(/*dim=*/2).view({8, 8});
        return moved;
    };
    const auto local = cellsMoved("local");
    // A local cell sees 3 px past its edges: cells 0..3 end at pixel 35, so they keep every value.
    EXPECT_EQ(local.index({torch::indexing::Slice(0, 4), torch::indexing::Slice(0, 4)}).max().item<float>(), 0.0f);
    EXPECT_GT(local[4][4].item<float>(), 0.0f);  // sees pixels 29..42
    EXPECT_GT(local[7][7].item<float>(), 0.0f);
    // The wide encoder's cell (3, 3) sees about 20 px around its centre, into the repainted block.
    const auto wide = cellsMoved("wide");
    EXPECT_GT(wide[3][3].item<float>(), 0.0f);
    EXPECT_EQ(wide[0][0].item<float>(), 0.0f);

    // On a uniform image, local interior cells are equal; with cell positions, they say where they are.
    config.encoder = "local";
    for (bool positions : {false, true}) {
        config.cellPositions = positions;
        torch::manual_seed(5);
        CaptionNetwork net(config);
        net->eval();
        const auto flat = net->encode(torch::full({1, 3, 64, 64}, 0.5f))[0];
        const float apart = (flat[2 * 8 + 2] - flat[5 * 8 + 5]).abs().max().item<float>();
        if (positions)
            EXPECT_GT(apart, 0.01f);
        else
            EXPECT_EQ(apart, 0.0f);
    }

    // The field is checked, written and read; checkpoints without it are wide.
    config.encoder = "sideways";
    ASSERT_FALSE(validateCaptionConfig(config).ok());
    EXPECT_NE(validateCaptionConfig(config).error().find("unknown encoder 'sideways'"), std::string::npos);
    config.encoder = "local";
    auto json = nlohmann::json::parse(captionConfigToJson(config));
    EXPECT_EQ(captionConfigFromJson(json.dump())->encoder, "local");
    EXPECT_TRUE(captionConfigFromJson(json.dump())->cellPositions);
    json.erase("encoder");
    json.erase("cell_positions");
    EXPECT_EQ(captionConfigFromJson(json.dump())->encoder, "wide");
    EXPECT_FALSE(captionConfigFromJson(json.dump())->cellPositions);
    json["encoder"] = 3;
    EXPECT_FALSE(captionConfigFromJson(json.dump()).ok());
    json["encoder"] = "wide";
    json["cell_positions"] = 1;
    EXPECT_EQ(captionConfigFromJson(json.dump()).error(), "model config: 'cell_positions' must be true or false, got 1");
}

TEST(Captioner, PerCellTablesDecodeAsTheFullStep) {
    // Without gradients, hard rules decode from per-cell tables; with them, through the full step.
    auto net = tinyNet();
    const auto images = torch::rand({5, 3, 32, 32});
    SelectionOptions sample;
    sample.rule = SelectionRule::Sample;
    const auto annotations = net->encode(images).detach();
    Rng a(4), b(4);
    const auto full = net->decode(annotations, sample, a);  // gradients on: the full step
    torch::NoGradGuard noGrad;
    const auto tables = net->decode(annotations, sample, b);
    ASSERT_EQ(full.tokens.sizes(), tables.tokens.sizes());
    EXPECT_TRUE(torch::equal(full.tokens, tables.tokens));
    EXPECT_TRUE(torch::equal(full.steps.indices, tables.steps.indices));
    EXPECT_TRUE(torch::allclose(full.steps.wordLogits.detach(), tables.steps.wordLogits, 1e-4, 1e-4));
}

TEST(Captioner, PerCellTablesDecodeAsTheFullStepOnTheBundledModel) {
    auto model = CaptionModel::load(std::string(SACCADE_SAMPLES_DIR) + "/models/caption-soft-scenes64.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    torch::manual_seed(0);
    CaptionNetwork net((*model)->config());
    ASSERT_TRUE(loadCheckpointWeights(*net, nullptr, std::string(SACCADE_SAMPLES_DIR) + "/models/caption-soft-scenes64.pt").ok());
    net->eval();
    auto dataset = openDataset("scenes64");
    std::vector<Sample> samples;
    const auto batch = makeBatch(**dataset, Split::Test, {0, 1, 2, 3, 4, 5}, torch::kCPU, &samples);
    const auto annotations = net->encode(batch.images).detach();
    for (const char* name : {"argmax", "sample"}) {
        Rng a(4), b(4);
        const auto full = net->decode(annotations, *parseSelectionRule(name), a);
        torch::NoGradGuard noGrad;
        const auto tables = net->decode(annotations, *parseSelectionRule(name), b);
        EXPECT_TRUE(torch::equal(full.tokens, tables.tokens)) << name << "\n" << full.tokens << "\n" << tables.tokens;
    }
}

TEST(Captioner, BeamOfOneIsGreedyDecoding) {
    auto net = tinyNet();
    torch::NoGradGuard noGrad;
    for (int image = 0; image < 4; ++image) {
        const auto annotations = net->encode(torch::rand({1, 3, 32, 32}));
        SelectionOptions argmax;
        argmax.rule = SelectionRule::Argmax;
        Rng rng(1);
        const auto greedy = net->decode(annotations, argmax, rng);
        const auto beam = net->beamSearch(annotations, 1, argmax);
        ASSERT_FALSE(beam.empty());
        std::vector<std::int64_t> tokens(greedy.tokens[0].data_ptr<std::int64_t>(),
                                         greedy.tokens[0].data_ptr<std::int64_t>() + greedy.tokens.size(1));
        EXPECT_EQ(decodeCaption(beam.front().tokens, tinyConfig().vocabulary),
                  decodeCaption(tokens, tinyConfig().vocabulary));
        // A wider beam never finds a less probable finished caption than a beam of one.
        const auto wide = net->beamSearch(annotations, 4, argmax);
        const bool finishedOne = beam.front().tokens.back() == kEndToken;
        if (finishedOne && wide.front().tokens.back() == kEndToken) {
            EXPECT_GE(wide.front().logProb, beam.front().logProb - 1e-9);
        }
    }
}

TEST(Captioner, CaptionsEncodeDecodeAndGround) {
    const auto vocab = sceneVocabulary();
    const auto ids = encodeCaption({"a", "small", "red", "zebra"}, vocab, 8);
    EXPECT_EQ(ids.size(), 8u);
    EXPECT_EQ(ids[0], kStartToken);
    EXPECT_EQ(ids[4], kUnknownToken);
    EXPECT_EQ(ids[5], kEndToken);
    EXPECT_EQ(ids[6], kPadToken);
    EXPECT_EQ(decodeCaption(ids, vocab), (std::vector<std::string>{"a", "small", "red", "<unk>"}));
    // Too long for the row: cut, without <end>.
    EXPECT_EQ(encodeCaption({"a", "a", "a", "a", "a", "a", "a"}, vocab, 5).back(), 4);

    const std::vector<LabeledBox> objects = {{{0, 0, 10, 10}, 0, "small red circle"},
                                             {{20, 20, 10, 10}, 1, "large blue square"}};
    const auto words = splitWords("a small red circle left of a large green square");
    // Exact phrase -> object 0; "large green square" has no exact match: "large" and "square"
    // name the one object sharing them, "green" names nobody.
    EXPECT_EQ(groundCaptionWords(words, objects), (std::vector<int>{-1, 0, 0, 0, -1, -1, -1, 1, -1, 1}));
    EXPECT_TRUE(cellHitsBox({0, 0, 8, 8}, {4, 4, 20, 20}));    // 16 of 64 px: a quarter of the cell
    EXPECT_FALSE(cellHitsBox({0, 0, 8, 8}, {6, 6, 20, 20}));   // 4 px
    EXPECT_TRUE(cellHitsBox({0, 0, 16, 16}, {2, 2, 4, 4}));    // a small object inside the cell

    // Scored targets: object words their object, "left" and "of" both objects, the rest none.
    const auto targets = captionWordTargets(words, objects);
    EXPECT_EQ(targets[1], std::vector<int>{0});
    EXPECT_EQ(targets[4], (std::vector<int>{0, 1}));
    EXPECT_EQ(targets[5], (std::vector<int>{0, 1}));
    EXPECT_TRUE(targets[0].empty() && targets[6].empty() && targets[8].empty());
    // A 4 x 4 grid on a 40-px image (10-px cells): cell 0 is object 0's box, cell 10 (row 2,
    // col 2) object 1's, cell 15 neither. Per word: hit, miss, not scored.
    const std::vector<int> cells = {15, 0, 15, 0, 10, 15, 3, 10, 10, -1};
    EXPECT_EQ(captionWordHits(words, objects, cells, 4, 40), (std::vector<int>{-1, 1, 0, 1, 1, 0, -1, 1, -1, -1}));
    // Without objects nothing is scored.
    EXPECT_EQ(captionWordHits(words, {}, cells, 4, 40), std::vector<int>(10, -1));
}

TEST(Captioner, ScoresCountObjectWordsAndNamedObjectsPerObjectSize) {
    // The scene above on a 4 x 4 grid of 10-px cells: cell 0 is the small circle's box, cell 10
    // the large square's. Each word looks at one cell with all its attention.
    Sample scene;
    scene.objects = {{{0, 0, 10, 10}, 0, "small red circle"}, {{20, 20, 10, 10}, 1, "large blue square"}};
    scene.captionWords = splitWords("a small red circle left of a large blue square");
    DecodedCaption caption;
    caption.words = splitWords("a small red circle left of a large green square");
    caption.chosen = {15, 0, 15, 0, 10, 15, 3, 10, 10, 0, 15};  // the last: the <end> step
    for (const int cell : caption.chosen) {
        std::vector<float> p(16, 0.f);
        p[std::size_t(cell)] = 1.f;
        caption.attention.push_back(p);
    }
    CaptionScoreAccumulator acc("argmax", 4, 40);
    EXPECT_FALSE(acc.add(scene, caption));
    const auto scores = acc.scores();
    // Small: "small" (hit), "red" (cell 15: miss), "circle" (hit); all its attention or none in
    // the box. Large: "large" (cell 10: hit) and "square" (cell 0: miss); "green" names nobody;
    // "left" and "of" relate two objects and count under neither size.
    const auto small = scores.correctness.byClass.at(objectSizeKey("small"));
    EXPECT_EQ(small.words, 3);
    EXPECT_EQ(small.hits, 2);
    EXPECT_NEAR(small.massSum.value(), 2.0, 1e-9);
    const auto large = scores.correctness.byClass.at(objectSizeKey("large"));
    EXPECT_EQ(large.words, 2);
    EXPECT_EQ(large.hits, 1);
    EXPECT_NEAR(large.massSum.value(), 1.0, 1e-9);
    // The small circle is named in full; the large square is not ("large green square").
    EXPECT_EQ(scores.naming.bySize.at("small").named, 1);
    EXPECT_EQ(scores.naming.bySize.at("small").objects, 1);
    EXPECT_EQ(scores.naming.bySize.at("large").named, 0);
    EXPECT_EQ(scores.naming.bySize.at("large").objects, 1);
    const auto report = captionRuleReport(scores);
    ASSERT_EQ(report.bySize.size(), 2u);
    EXPECT_EQ(report.bySize[1].size, "small");
    EXPECT_NEAR(report.bySize[1].hitRate, 2.0 / 3.0, 1e-12);
    EXPECT_EQ(report.bySize[1].hits, 2);
    // In JSON: figures per size with their Wilson intervals (one object of each size: 0 of 1 named
    // is an interval from 0 to 0.79).
    EvalReport eval;
    eval.captions = {report};
    const auto json = nlohmann::json::parse(evalReportToJson(eval));
    const auto& largeJson = json["by_object_size"]["large"];
    EXPECT_EQ(largeJson["words"], 2);
    EXPECT_DOUBLE_EQ(largeJson["hit_rate"].get<double>(), 0.5);
    EXPECT_EQ(largeJson["named"], 0);
    EXPECT_EQ(largeJson["objects"], 1);
    EXPECT_DOUBLE_EQ(largeJson["named_rate"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(largeJson["named_rate_ci95"][0].get<double>(), 0.0);
    EXPECT_NEAR(largeJson["named_rate_ci95"][1].get<double>(), 0.7935, 1e-4);
    EXPECT_EQ(json["by_rule"]["argmax"]["by_object_size"], json["by_object_size"]);
    EXPECT_EQ(report.attention.back().wordClass, "objects");
    EXPECT_EQ(report.attention.back().words, 5);  // the five above: "green" is not grounded
}

TEST(Captioner, RunStatsCountWordHitsPerWord) {
    // Three runs by hand: "red" hits twice of three uses, "circle" once of two; the deterministic
    // caption's "red" missed.
    RunSet set;
    set.outputKind = OutputKind::Caption;
    set.steps = 5;
    set.classNames = {"a small red circle", "a red red square"};
    set.deterministic.output.text = "a small red circle left of a blue cross";
    set.deterministicWordHits = {-1, 1, 0, 1, 1, -1, -1, 0, -1};
    auto run = [](const std::string& text, std::vector<int> hits) {
        RunRecord r;
        r.text = text;
        r.label = text == "a red red square" ? 1 : 0;
        r.wordHits = std::move(hits);
        r.entropy = std::vector<float>(5, 1.f);
        return r;
    };
    set.runs = {run("a small red circle", {-1, 1, 1, 0}), run("a red red square", {-1, 1, 0, -1}),
                run("a small red circle", {-1, 0, -1, 1})};
    const auto stats = computeRunStats(set);
    // red (3 scored uses), small (2), circle (2), then the deterministic caption's own: left and
    // blue, which no run used ("of", "a" and "cross" are not scored there).
    ASSERT_EQ(stats.wordHits.size(), 5u);
    EXPECT_EQ(stats.wordHits[3].word, "left");
    EXPECT_EQ(stats.wordHits[3].uses, 0);
    EXPECT_EQ(stats.wordHits[3].deterministic, 1);
    EXPECT_EQ(stats.wordHits[4].word, "blue");
    EXPECT_EQ(stats.wordHits[4].deterministic, 0);
    EXPECT_EQ(stats.wordHits[0].word, "red");
    EXPECT_EQ(stats.wordHits[0].uses, 3);
    EXPECT_EQ(stats.wordHits[0].hits, 2);
    EXPECT_EQ(stats.wordHits[0].runs, 2);
    EXPECT_EQ(stats.wordHits[0].deterministic, 0);
    EXPECT_EQ(stats.wordHits[1].word, "small");
    EXPECT_DOUBLE_EQ(stats.wordHits[1].rate(), 0.5);
    EXPECT_EQ(stats.wordHits[1].deterministic, 1);
    EXPECT_EQ(stats.wordHits[2].word, "circle");
    EXPECT_EQ(stats.wordHits[2].hits, 1);
    const auto json = nlohmann::json::parse(runSetToJson(set, stats));
    EXPECT_EQ(json["stats"]["word_hits"][0]["word"], "red");
    EXPECT_EQ(json["stats"]["word_hits"][0]["deterministic_hit"], false);
    EXPECT_EQ(json["runs"][1]["word_hits"], (std::vector<int>{-1, 1, 0, -1}));
    EXPECT_TRUE(json["stats"]["word_hits"][3]["hit_rate"].is_null());
}

TEST(Captioner, SceneProbesPaintExactlyTheirBox) {
    SceneOptions options;
    auto probe = renderSceneProbe(options, "large yellow square", 20, 10, 30, 1);
    ASSERT_TRUE(probe.ok()) << probe.error();
    EXPECT_EQ(probe->captionWords, (std::vector<std::string>{"a", "large", "yellow", "square"}));
    EXPECT_EQ(probe->objects.size(), 1u);
    const auto& img = probe->image;
    auto at = [&](int x, int y, int c) { return int(img.pixels[size_t((y * img.width + x) * 3 + c)]); };
    EXPECT_EQ(at(10, 30, 0), 230);  // yellow inside the box, grey outside
    EXPECT_EQ(at(29, 49, 1), 215);
    EXPECT_EQ(at(9, 30, 0), 25);
    EXPECT_EQ(at(30, 50, 0), 25);
    EXPECT_FALSE(renderSceneProbe(options, "large yellow", 20, 10, 30, 1).ok());
    EXPECT_FALSE(renderSceneProbe(options, "huge yellow square", 20, 10, 30, 1).ok());
    EXPECT_FALSE(renderSceneProbe(options, "large yellow square", 20, 50, 30, 1).ok());  // leaves the image
}

TEST(Captioner, RulesParseStrictly) {
    EXPECT_EQ(parseCaptionRule("beam:4", TrainingMode::Soft)->beam, 4);
    EXPECT_EQ(parseCaptionRule("beam:4", TrainingMode::Soft)->location.rule, SelectionRule::Soft);
    EXPECT_EQ(parseCaptionRule("beam:4", TrainingMode::Hard)->location.rule, SelectionRule::Argmax);
    EXPECT_EQ(parseCaptionRule("beam", TrainingMode::Hard)->beam, 3);
    for (const char* bad : {"beam:0", "beam:12abc", "beam:-1", "beam:", "topk:2", "ksample:3", "mean", "x"})
        EXPECT_FALSE(parseCaptionRule(bad, TrainingMode::Soft).ok()) << bad;
}

TEST(Captioner, AttentionEntropyWeightAddsEachWordsEntropyToTheSoftLoss) {
    // Two soft iterations with the local encoder and cell positions, without and with the weight:
    // the same first forward pass (same seed), the loss grows by exactly weight x the mean entropy
    // per word, and the term's gradient changes the first update (a detached term would not: at
    // initialisation the attention is near uniform, where the entropy's gradient is small, so
    // the direction of the change is not asserted).
    test::TempDir dir;
    auto twoSteps = [&](double weight) {
        auto o = tinyTraining(dir.file("entropy.pt"), 2);
        o.model.encoder = "local";
        o.model.cellPositions = true;
        o.dsrLambda = 0;
        o.attentionEntropy = weight;
        return trainRecording(o);
    };
    const auto plainSteps = twoSteps(0), sharpenedSteps = twoSteps(2.5);
    ASSERT_EQ(plainSteps.size(), 2u);
    ASSERT_EQ(sharpenedSteps.size(), 2u);
    const auto &plain = plainSteps[0], &sharpened = sharpenedSteps[0];
    ASSERT_EQ(plain.iteration, 1);
    ASSERT_EQ(sharpened.iteration, 1);
    EXPECT_GT(plain.entropy, 0.5);  // 64 cells at initialisation: near log 64 = 4.16
    EXPECT_NEAR(plain.loss, plain.crossEntropy, 1e-6);
    EXPECT_NEAR(sharpened.crossEntropy, plain.crossEntropy, 1e-6);
    EXPECT_NEAR(sharpened.loss - sharpened.crossEntropy, 2.5 * sharpened.entropy, 1e-4);
    EXPECT_GT(std::abs(sharpenedSteps[1].entropy - plainSteps[1].entropy), 1e-4);
    // The cell position vectors are saved and loaded with the rest.
    auto model = CaptionModel::load(dir.file("entropy.pt"), test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto dataset = openDataset("scenes64");
    ASSERT_TRUE(dataset.ok());
    const Sample s = (*dataset)->sample(Split::Test, 0);
    EXPECT_TRUE((*model)->trace(s.image, "soft", 1, "t0", sceneGroundTruth(s)).ok());
    CaptionTrainOptions bad;
    bad.attentionEntropy = -1;
    bad.out = dir.file("bad.pt");
    bad.iterations = 1;
    auto refused = trainCaptionModel(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("attention entropy"), std::string::npos);
    bad.attentionEntropy = 0.1;
    for (TrainingMode mode : {TrainingMode::Hard, TrainingMode::Gumbel}) {
        bad.model.mode = mode;
        refused = trainCaptionModel(bad);
        ASSERT_FALSE(refused.ok());
        EXPECT_EQ(refused.error(),
                  "the attention entropy weight applies to soft training only (this is " + trainingModeName(mode) + ")");
    }
}

TEST(Captioner, AttentionEntropyWarmupRampsTheWeightLinearly) {
    // Three soft iterations with weight 0.9 ramped over 3: iteration k (from 0) adds
    // 0.9 (k + 1) / 3 x its mean attention entropy, and from then on the full weight.
    test::TempDir dir;
    auto o = tinyTraining(dir.file("warm.pt"), 4);
    o.dsrLambda = 0;
    o.attentionEntropy = 0.9;
    o.attentionEntropyWarmup = 3;
    const auto steps = trainRecording(o);
    ASSERT_EQ(steps.size(), 4u);
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const double weight = 0.9 * std::min(1.0, double(k + 1) / 3.0);
        EXPECT_GT(steps[k].entropy, 0.5);
        EXPECT_NEAR(steps[k].loss - steps[k].crossEntropy, weight * steps[k].entropy, 1e-4) << "iteration " << k;
    }
    CaptionTrainOptions bad = o;
    bad.attentionEntropy = 0;
    bad.out = dir.file("bad.pt");
    auto refused = trainCaptionModel(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), "an attention entropy warm-up needs an attention entropy weight above 0");
    bad.attentionEntropy = 0.1;
    bad.attentionEntropyWarmup = -1;
    refused = trainCaptionModel(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), "the attention entropy warm-up must be >= 0 iterations");
}

TEST(Captioner, TrainsSavesLoadsTracesRunsAndEvaluates) {
    test::TempDir dir;
    auto o = tinyTraining(dir.file("cap.pt"), 2, 4);
    o.model.mode = TrainingMode::Hard;
    auto summary = trainCaptionModel(o);
    ASSERT_TRUE(summary.ok()) << summary.error();
    EXPECT_EQ(summary->iterations, 2);

    auto model = CaptionModel::load(o.out, test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->outputKind(), OutputKind::Caption);
    EXPECT_EQ((*model)->classNames(), sceneVocabulary());
    auto dataset = openDataset("scenes64");
    ASSERT_TRUE(dataset.ok());
    const Sample s = (*dataset)->sample(Split::Test, 3);
    const auto truth = sceneGroundTruth(s);
    auto trace = (*model)->trace(s.image, "sample", 5, "t3", truth);
    ASSERT_TRUE(trace.ok()) << trace.error();
    ASSERT_FALSE(trace->steps.empty());
    EXPECT_EQ(trace->steps.back().token, trace->output.text.empty() ? "<end>" : trace->steps.back().token);
    EXPECT_EQ(trace->steps.front().outputProbs.size(), sceneVocabulary().size());
    EXPECT_EQ(trace->steps.front().chosenCells.size(), 1u);

    auto runs = (*model)->sampleRuns(s.image, 12, 5, "t3", truth, 3);
    ASSERT_TRUE(runs.ok()) << runs.error();
    EXPECT_EQ(runs->outputKind, OutputKind::Caption);
    ASSERT_EQ(runs->runs.size(), 12u);
    EXPECT_EQ(runs->classNames.front(), runs->deterministic.output.text);
    // Run i repeats the single trace with seed + i.
    for (int i : {0, 7}) {
        auto single = (*model)->trace(s.image, "sample", 5 + std::uint64_t(i), "t3", truth);
        ASSERT_TRUE(single.ok());
        EXPECT_EQ(runs->runs[size_t(i)].text, single->output.text) << "run " << i;
        ASSERT_EQ(runs->runs[size_t(i)].cells.size(), single->steps.size());
        for (std::size_t t = 0; t < single->steps.size(); ++t)
            EXPECT_EQ(runs->runs[size_t(i)].cells[t], single->steps[t].chosenCells[0]);
    }

    auto report = (*model)->evaluate(**dataset, Split::Test, {"argmax", "soft", "sample", "beam:2"}, 6, 1);
    ASSERT_TRUE(report.ok()) << report.error();
    ASSERT_EQ(report->captions.size(), 4u);
    for (const auto& c : report->captions)
        for (double b : c.bleu) EXPECT_TRUE(b >= 0 && b <= 1);
    EXPECT_EQ(report->predictions[0].size(), 6u);
    EXPECT_NE(evalReportToJson(*report).find("\"bleu4\""), std::string::npos);
    // The caption sweep: one probe per offset, the caption judged against the object's colour.
    CaptionSweepOptions sweep;
    sweep.object = "small blue square";
    sweep.dxMin = -3;
    sweep.dxMax = 2;
    sweep.runs = 3;
    auto swept = sweepCaptionProbe(**model, sweep);
    ASSERT_TRUE(swept.ok()) << swept.error();
    ASSERT_EQ(swept->points.size(), 6u);
    EXPECT_EQ(swept->cell, 8);
    EXPECT_EQ(swept->line, 32);
    EXPECT_EQ(swept->points.front().x, 29);
    for (const auto& p : swept->points) {
        EXPECT_EQ(p.colourRight, p.caption.find("blue") != std::string::npos) << p.caption;
        EXPECT_TRUE(p.mass >= 0 && p.mass <= 1 + 1e-6);
        EXPECT_TRUE(p.runsColourRight >= 0 && p.runsColourRight <= 1);
    }
    sweep.dxMin = -40;
    EXPECT_NE(sweepCaptionProbe(**model, sweep).error().find("off the"), std::string::npos);
    sweep.dxMin = 0;
    sweep.object = "small pink circle";
    EXPECT_NE(sweepCaptionProbe(**model, sweep).error().find("unknown probe object"), std::string::npos);

    // A captioner is not evaluated on a classification set, nor loaded as another family.
    auto fashion = openDataset("translated-digits60");
    ASSERT_TRUE(fashion.ok());
    EXPECT_FALSE((*model)->evaluate(**fashion, Split::Test, {"argmax"}, 4, 1).ok());
    EXPECT_NE(loadAttentionModel(o.out, test::testDevice()).ok(), false);
}

namespace saccade {
namespace {

TEST(Captioner, FaithfulnessOccludesEachObjectWordsCells) {
    // The bundled soft captioner on 3 scenes: nothing occluded keeps every word; occluding cells
    // removes some; the same seed repeats the figures; and only captioners on captioned scenes
    // are measured.
    auto model = loadAttentionModel(std::string(SACCADE_SAMPLES_DIR) + "/models/caption-soft-scenes64.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto scenes = openDataset("scenes64");
    ASSERT_TRUE(scenes.ok());
    CaptionFaithfulnessOptions o;
    o.limit = 3;
    o.fractions = {0.0, 0.5, 1.0};
    auto r = measureCaptionFaithfulness(**model, **scenes, Split::Test, o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->images, 3);
    EXPECT_EQ(r->rule, "soft");
    EXPECT_GT(r->words, 3);  // a scene names at least one object: three words
    EXPECT_EQ(r->rows, 8);
    ASSERT_EQ(r->deletion.size(), 3u);
    EXPECT_DOUBLE_EQ(r->deletion[0].keptAttended, 1.0);
    EXPECT_DOUBLE_EQ(r->deletion[0].keptRandom, 1.0);
    // Every cell occluded: both orders occlude the same image, so they keep the same words.
    EXPECT_DOUBLE_EQ(r->deletion[2].keptAttended, r->deletion[2].keptRandom);
    EXPECT_LT(r->deletion[2].keptAttended, 1.0);
    EXPECT_GT(r->massOnObject, 0.0);
    EXPECT_GT(r->uniformMass, 0.0);
    auto again = measureCaptionFaithfulness(**model, **scenes, Split::Test, o);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->deletion[1].keptRandom, r->deletion[1].keptRandom);
    EXPECT_EQ(again->massOnObject, r->massOnObject);
    const auto json = nlohmann::json::parse(captionFaithfulnessToJson(*r));
    EXPECT_EQ(json["schema"], "saccade.caption-faithfulness");
    EXPECT_EQ(json["object_words"], r->words);
    EXPECT_FALSE(json.contains("sums"));

    // Two shards (scene 0; scenes 1 and 2) add up to the whole run exactly, and merge into its JSON.
    std::vector<std::string> shards;
    std::int64_t words = 0;
    for (int i : {1, 0}) {
        auto part = o;
        part.shard = {i, 2, true};
        auto s = measureCaptionFaithfulness(**model, **scenes, Split::Test, part);
        ASSERT_TRUE(s.ok()) << s.error();
        EXPECT_EQ(s->images, i == 0 ? 1 : 2);
        words += s->words;
        shards.push_back(captionFaithfulnessToJson(*s));
        auto sums = captionFaithfulnessSumsFromJson(shards.back());
        ASSERT_TRUE(sums.ok()) << sums.error();
        EXPECT_EQ(sums->mass.units(), s->sums.mass.units());
        EXPECT_EQ(sums->keptAttended, s->sums.keptAttended);
    }
    EXPECT_EQ(words, r->words);
    auto merged = mergeShardDocuments(shards, {"part1.json", "part0.json"});
    ASSERT_TRUE(merged.ok()) << merged.error();
    auto whole = nlohmann::json::parse(*merged), alone = json;
    whole.erase("seconds");
    alone.erase("seconds");
    EXPECT_EQ(whole, alone);
    EXPECT_FALSE(mergeShardDocuments({shards[0]}, {"part1.json"}).ok());  // shard 0 missing
    auto damaged = nlohmann::json::parse(shards[0]);
    damaged["sums"]["kept_random"] = {1};
    EXPECT_NE(mergeShardDocuments({damaged.dump(), shards[1]}, {"part1.json", "part0.json"}).error().find("damaged"),
              std::string::npos);

    auto digits = openDataset("digits28");
    ASSERT_TRUE(digits.ok());
    EXPECT_NE(measureCaptionFaithfulness(**model, **digits, Split::Test, o).error().find("has no captions"), std::string::npos);
    o.fractions = {1.5};
    EXPECT_NE(measureCaptionFaithfulness(**model, **scenes, Split::Test, o).error().find("[0, 1]"), std::string::npos);
    auto patch = loadAttentionModel(std::string(SACCADE_SAMPLES_DIR) + "/models/patch-hard-fashion60.pt", test::testDevice());
    ASSERT_TRUE(patch.ok());
    EXPECT_NE(measureCaptionFaithfulness(**patch, **scenes, Split::Test, o).error().find("needs a captioner"), std::string::npos);
}

}  // namespace
}  // namespace saccade
