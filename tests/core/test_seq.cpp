// Sequence tasks (gold alignments, splits, references), the alignment error rate, the
// encoder-decoder's attention, and a few training iterations through open, translate and eval.

#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "metrics/alignment_error.h"
#include "data/seq_task.h"
#include "models/seq/seq_batch.h"
#include "models/seq/seq_model.h"
#include "models/translation_maps.h"
#include "models/seq/seq_net.h"
#include "models/seq/seq_network.h"
#include "temp_dir.h"
#include "trace/seq_trace_json.h"
#include "models/seq/seq_trainer.h"
#include "test_device.h"

namespace saccade {
namespace {

std::shared_ptr<const SeqTask> task(const std::string& name) {
    auto t = openSeqTask(name);
    EXPECT_TRUE(t.ok()) << t.error();
    return *t;
}

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += x;
    return s;
}

TEST(SeqTasks, DatesGoldAlignmentOfAWrittenDate) {
    auto dates = task("dates");
    auto r = dates->reference("3rd of March 2021");
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(joined(r->target), "2021-03-03");
    // "3rd of March 2021": day at 0, month word at 7..11, year at 13..16.
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r->sure[size_t(i)], std::vector<int>{13 + i});
    EXPECT_TRUE(r->sure[4].empty() && r->possible[4].empty());  // the dash comes from nowhere
    EXPECT_TRUE(r->sure[5].empty());
    EXPECT_EQ(r->possible[5], (std::vector<int>{7, 8, 9, 10, 11}));
    EXPECT_EQ(r->possible[6], r->possible[5]);
    EXPECT_TRUE(r->sure[8].empty());
    EXPECT_EQ(r->possible[8], std::vector<int>{0});  // the padding zero of a one-digit day
    EXPECT_EQ(r->sure[9], std::vector<int>{0});

    auto iso = dates->reference("2021/03/13");
    ASSERT_TRUE(iso.ok());
    EXPECT_EQ(iso->sure[5], std::vector<int>{5});
    EXPECT_EQ(iso->sure[9], std::vector<int>{9});
    EXPECT_EQ(joined(dates->reference("WEDNESDAY, 3 MARCH 2021")->target), "2021-03-03");
    EXPECT_EQ(joined(dates->reference("march 3,   2021")->target), "2021-03-03");  // spaces collapse
    EXPECT_EQ(joined(dates->reference("29 Feb 2000")->target), "2000-02-29");
}

TEST(SeqTasks, DatesRefuseWhatIsNotADate) {
    auto dates = task("dates");
    auto expectError = [&](const std::string& text, const std::string& part) {
        auto r = dates->reference(text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.error().find(part), std::string::npos) << text << ": " << r.error();
    };
    expectError("31 February 2021", "28 days");
    expectError("29 February 1900", "28 days");  // 1900 is not a leap year
    expectError("29 February 2100", "outside 1900-2099");
    expectError("Monday, 3 March 2021", "Wednesday");
    expectError("3th of March 2021", "not an ordinal");
    expectError("3 Marchember 2021", "not a month");
    expectError("3 März 2021", "'ä'");
    expectError("yesterday", "not one of the date forms");
}

TEST(SeqTasks, GeneratedSamplesAgreeWithTheTasksOwnParserAndSplitsAreDisjoint) {
    for (const auto& name : seqTaskNames()) {
        auto t = task(name);
        std::set<std::string> train, trainKeys;
        for (std::int64_t i = 0; i < 3000; ++i) {
            const auto s = t->sample(Split::Train, i, 7);
            ASSERT_EQ(s.sure.size(), s.target.size());
            ASSERT_LE(int(s.source.size()), t->trainLengths().second) << name;
            ASSERT_LE(int(s.target.size()), t->maxTargetLength());
            for (const auto& tok : s.source) ASSERT_TRUE(t->sourceVocab().contains(tok)) << name << " " << tok;
            for (const auto& tok : s.target) ASSERT_TRUE(t->targetVocab().contains(tok)) << name << " " << tok;
            train.insert(t->detokenize(s.source));
            trainKeys.insert(t->splitKey(s));
            if (i < 300) {
                auto ref = t->reference(t->detokenize(s.source));
                ASSERT_TRUE(ref.ok()) << name << ": " << t->detokenize(s.source) << ": " << ref.error();
                EXPECT_EQ(ref->target, s.target);
                EXPECT_EQ(ref->sure, s.sure);
                EXPECT_EQ(ref->possible, s.possible);
            }
        }
        int longer = 0;
        for (std::int64_t i = 0; i < 500; ++i) {
            const auto s = t->sample(Split::Test, i, kSeqTestSeed);
            EXPECT_EQ(train.count(t->detokenize(s.source)), 0u) << name << " test sentence seen in training";
            EXPECT_EQ(trainKeys.count(t->splitKey(s)), 0u) << name << " test key seen in training";
            longer += int(s.source.size()) > t->trainLengths().second;
        }
        if (name == "reverse" || name == "sort") {
            EXPECT_GT(longer, 100) << "test lengths 16-20 are a third of the split";
        }
        // Dates split by the date itself: with a split by text, about 20 of these 500 test dates
        // would be among the 3,000 training dates in another form or case.
        if (name == "dates") {
            EXPECT_EQ(t->splitKey(t->sample(Split::Test, 0, 1)).rfind("date ", 0), 0u);
        }
        // Sample i is the same whatever was drawn before it, and other indices differ.
        const auto first = t->sample(Split::Test, 17, 1).source;
        for (std::int64_t i = 30; i >= 0; --i) t->sample(Split::Test, i, 1);
        EXPECT_EQ(t->sample(Split::Test, 17, 1).source, first);
        EXPECT_NE(t->sample(Split::Test, 18, 1).source, first);
        EXPECT_NE(t->sample(Split::Test, 17, 2).source, first);
    }
}

TEST(SeqTasks, DigitGoldAlignments) {
    auto rev = task("reverse")->reference("1234");
    ASSERT_TRUE(rev.ok());
    EXPECT_EQ(joined(rev->target), "4321");
    EXPECT_EQ(rev->sure[0], std::vector<int>{3});
    auto sorted = task("sort")->reference("3103");
    ASSERT_TRUE(sorted.ok());
    EXPECT_EQ(joined(sorted->target), "0133");
    EXPECT_EQ(sorted->sure[0], std::vector<int>{2});
    EXPECT_TRUE(sorted->sure[2].empty());  // a repeated digit: either copy
    EXPECT_EQ(sorted->possible[2], (std::vector<int>{0, 3}));
    EXPECT_FALSE(task("reverse")->reference("12a4").ok());
    EXPECT_FALSE(task("reverse")->reference(std::string(21, '1')).ok());
}

TEST(SeqTasks, ToyTranslationIsVerbFinalWithCrossingAlignments) {
    auto toy = task("toy-translation");
    EXPECT_GE(toy->sourceVocab().size(), 4 + 200);  // a few hundred words, none twice
    EXPECT_EQ(toy->targetVocab().size(), toy->sourceVocab().size() + 2);  // and the two case markers
    auto r = toy->reference("The big dog sees a cat near the river");
    ASSERT_TRUE(r.ok()) << r.error();
    // dog big the ta cat a ne river the near sees
    ASSERT_EQ(r->target.size(), 11u);
    EXPECT_EQ(r->target[3], "ta");
    EXPECT_EQ(r->target[6], "ne");
    const std::vector<std::vector<int>> gold = {{2}, {1}, {0}, {}, {5}, {4}, {}, {8}, {7}, {6}, {3}};
    EXPECT_EQ(r->sure, gold);
    auto unknown = toy->tokenize("the zebra sees a cat.");
    EXPECT_EQ(unknown.unknown, (std::vector<std::string>{"zebra", "."}));
    EXPECT_FALSE(toy->reference("sees the dog a cat").ok());
}

TEST(AlignmentError, HandComputedRates) {
    SeqSample g;
    g.target = {"a", "b", "c", "-"};
    g.sure = {{0}, {}, {2}, {}};
    g.possible = {{0}, {1, 3}, {2}, {}};
    AlignmentErrorCounts perfect;
    perfect.add(g, {0, 3, 2, 1});  // the dash is not counted
    EXPECT_DOUBLE_EQ(perfect.rate(), 0.0);
    AlignmentErrorCounts half;
    half.add(g, {0, 0, 1, 0});  // |A| = 3, |S| = 2, |A&S| = 1, |A&P| = 1
    EXPECT_DOUBLE_EQ(half.rate(), 1.0 - 2.0 / 5.0);
}

SeqConfig tinyConfig(const std::string& scorer) {
    SeqConfig c;
    c.task = "reverse";
    c.scorer = scorer;
    c.embed = 8;
    c.encoderHidden = 6;
    c.decoderHidden = 12;
    c.attention = 5;
    c.sourceVocab = 14;
    c.targetVocab = 14;
    c.maxTarget = 21;
    return c;
}

TEST(SeqNetwork, AttentionRowsAreDistributionsOverRealTokens) {
    auto t = task("reverse");
    const auto a = t->reference("12345").value(), b = t->reference("987654321").value();
    const auto batch = makeSeqBatch(*t, {a, b}, torch::kCPU);
    for (const char* scorer : {"additive", "dot", "general", "scaled-dot", "local-p"}) {
        for (const char* cell : {"gru", "lstm"}) {
            torch::manual_seed(3);
            auto config = tinyConfig(scorer);
            config.cell = cell;
            SeqNetwork net(config);
            torch::NoGradGuard noGrad;
            const auto enc = net->encode(batch.source, batch.lengths);
            Rng rng(1);
            SelectionOptions soft;
            const auto steps = net->teacherForced(enc, batch.input, soft, rng);
            ASSERT_EQ(steps.alpha.sizes(), (std::vector<std::int64_t>{2, 10, 9}));
            EXPECT_TRUE(torch::allclose(steps.alpha.sum(-1), torch::ones({2, 10}), 1e-5, 1e-5)) << scorer;
            EXPECT_EQ(steps.alpha[0].narrow(1, 5, 4).abs().sum().item<double>(), 0.0) << "padding gets no attention";
            if (std::string(scorer) == "local-p") {
                ASSERT_TRUE(steps.centre.defined());
                // Outside [p - D, p + D] the weight is exactly 0.
                const auto pos = torch::arange(9).to(torch::kFloat).view({1, 1, 9});
                const auto outside = (pos - steps.centre.unsqueeze(-1)).abs() > config.window;
                EXPECT_EQ(steps.alpha.masked_select(outside).abs().sum().item<double>(), 0.0);
                EXPECT_LE(steps.centre[0].max().item<double>(), 4.0);  // within the first row's 5 tokens
            }
            SelectionOptions sample;
            sample.rule = SelectionRule::Sample;
            const auto hard = net->teacherForced(enc, batch.input, sample, rng);
            EXPECT_LT(hard.chosen[0].max().item<std::int64_t>(), 5);
            const auto tv = net->permutationDistance(enc, batch.output.narrow(1, 0, 5), soft, rng);
            EXPECT_GE(tv.min().item<double>(), 0.0);
            EXPECT_LE(tv.max().item<double>(), 1.0);
        }
    }
}

TEST(SeqNetwork, FusedInferenceDecodingEqualsTheDifferentiablePath) {
    auto t = task("reverse");
    const auto batch = makeSeqBatch(*t, {t->reference("12345").value(), t->reference("987654321").value()}, torch::kCPU);
    for (const char* scorer : {"additive", "general", "local-p"}) {
        for (const char* cell : {"gru", "lstm"}) {
            torch::manual_seed(4);
            auto config = tinyConfig(scorer);
            config.cell = cell;
            SeqNetwork net(config);
            SelectionOptions soft;
            Rng rng(1);
            // With gradients, the differentiable path (each product apart, gates with their own
            // autograd node); without, the inference step that reads the table inside the loop.
            const auto slow = net->decode(net->encode(batch.source, batch.lengths), 8, soft, rng, false);
            ASSERT_TRUE(slow.logits.requires_grad());
            torch::NoGradGuard noGrad;
            const auto fast = net->decode(net->encode(batch.source, batch.lengths), 8, soft, rng, false);
            EXPECT_LT((fast.logits - slow.logits).abs().max().item<double>(), 1e-5) << scorer << " " << cell;
            EXPECT_LT((fast.alpha - slow.alpha).abs().max().item<double>(), 1e-5) << scorer << " " << cell;
            EXPECT_TRUE(torch::equal(fast.tokens, slow.tokens)) << scorer << " " << cell;
        }
    }
}

// Teacher forcing defers the decoder's context and hidden weight gradients (and packs them):
// every parameter's gradient equals plain autograd's, for the rules whose context depends on the
// state (soft, gumbel) and those whose context is a row of the keys (sample, argmax), with a
// padded batch, for both cells.
TEST(SeqNetwork, DeferredWeightGradientsEqualPlainAutogradForEveryRule) {
    auto t = task("reverse");
    const auto batch = makeSeqBatch(*t, {t->reference("12345").value(), t->reference("987654321").value(),
                                         t->reference("4321").value()},
                                    torch::kCPU);
    for (const char* cell : {"gru", "lstm"})
        for (const auto rule : {SelectionRule::Soft, SelectionRule::Gumbel, SelectionRule::Sample, SelectionRule::Argmax}) {
            auto gradients = [&](bool deferred) {
                torch::manual_seed(6);
                auto config = tinyConfig("additive");
                config.cell = cell;
                SeqNetwork net(config);
                net->setDeferredWeightGrads(deferred);
                SelectionOptions o;
                o.rule = rule;
                o.temperature = 1.0;
                Rng rng(2);
                const auto steps = net->teacherForced(net->encode(batch.source, batch.lengths), batch.input, o, rng);
                torch::manual_seed(7);
                const auto loss = (steps.logits * torch::randn(steps.logits.sizes())).sum() +
                                  (steps.alpha * torch::randn(steps.alpha.sizes())).sum();
                loss.backward();
                std::vector<torch::Tensor> g;
                for (const auto& p : net->named_parameters())
                    g.push_back(p.value().grad().defined() ? p.value().grad().clone() : torch::zeros_like(p.value()));
                return g;
            };
            const auto plain = gradients(false), deferred = gradients(true);
            ASSERT_EQ(plain.size(), deferred.size());
            double largest = 0;
            for (std::size_t i = 0; i < plain.size(); ++i) {
                largest = std::max(largest, plain[i].abs().max().item<double>());
                EXPECT_LT((plain[i] - deferred[i]).abs().max().item<double>(), 1e-4 * (1 + plain[i].abs().max().item<double>()))
                    << cell << " rule " << int(rule) << " parameter " << i;
            }
            EXPECT_GT(largest, 1e-3);  // the loss reaches the weights
        }
}

TEST(SeqTransformer, CausalMasksMapsAndGreedyDecoding) {
    auto t = task("reverse");
    auto config = tinyConfig("additive");
    config.architecture = "transformer";
    config.layers = 2;
    config.heads = 2;
    config.dim = 8;
    config.ff = 16;
    torch::manual_seed(5);
    const auto net = makeSeqNet(config);
    torch::NoGradGuard noGrad;
    const auto batch = makeSeqBatch(*t, {t->reference("12345").value(), t->reference("9876543").value()}, torch::kCPU);
    const auto enc = net->encode(batch.source, batch.lengths);
    Rng rng(1);
    SelectionOptions soft;
    const auto a = net->teacherForced(enc, batch.input, soft, rng);
    // Causal: changing the input after step 3 leaves steps 0..3 unchanged.
    auto changed = batch.input.clone();
    changed.narrow(1, 4, changed.size(1) - 4).fill_(5);
    const auto b = net->teacherForced(enc, changed, soft, rng);
    EXPECT_TRUE(torch::allclose(a.logits.narrow(1, 0, 4), b.logits.narrow(1, 0, 4), 1e-5, 1e-6));
    EXPECT_FALSE(torch::allclose(a.logits.narrow(1, 4, 1), b.logits.narrow(1, 4, 1), 1e-5, 1e-6));
    ASSERT_EQ(a.cross.sizes(), (std::vector<std::int64_t>{2, 2, 2, 8, 7}));
    EXPECT_EQ(a.cross[0].narrow(3, 5, 2).abs().sum().item<double>(), 0.0) << "padding gets no cross-attention";
    EXPECT_TRUE(torch::allclose(a.alpha, a.cross.select(1, 1).mean(1)));  // the alignment: last layer, mean over heads
    // Greedy decoding: each emitted token is the argmax of the final record's logits.
    const auto d = net->decode(enc, 6, soft, rng, /*stopWhenDone=*/false);
    EXPECT_TRUE(torch::equal(d.tokens, d.logits.argmax(-1)));
    SelectionOptions sample;
    sample.rule = SelectionRule::Sample;
    EXPECT_THROW(net->teacherForced(enc, batch.input, sample, rng), c10::Error);
    EXPECT_FALSE(net->permutationDistance(enc, d.tokens, soft, rng).defined());
}

TEST(SeqTraining, TransformerMapsHaveTheirLabels) {
    test::TempDir dir;
    SeqTrainOptions o;
    o.model = tinyConfig("additive");
    o.model.architecture = "transformer";
    o.model.dim = 8;
    o.model.heads = 2;
    o.model.ff = 16;
    o.iterations = 2;
    o.batch = 4;
    o.evalImages = 4;
    o.device = test::testDevice();
    o.out = dir.file("tr.pt");
    ASSERT_TRUE(trainSeqModel(o).ok());
    auto model = SeqModel::open(o.out, test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_FALSE((*model)->translate("123", "argmax").ok());
    auto tr = (*model)->translate("1234567");
    ASSERT_TRUE(tr.ok()) << tr.error();
    // Per kind: layers x (mean + heads), then the encoder rollout and the cross map through it.
    ASSERT_EQ(tr->maps.size(), 3u * 2 * 3 + 2);
    for (std::size_t i = 0; i < tr->maps.size(); ++i) {
        const auto v = withAttentionMap(*tr, i);
        ASSERT_EQ(v.alignment.size(), v.tokens.size()) << tr->maps[i].name;
        ASSERT_EQ(v.entropy.size(), v.tokens.size()) << tr->maps[i].name;
        for (const auto& row : v.alignment) {
            ASSERT_EQ(row.size(), v.source.size()) << tr->maps[i].name;
            double sum = 0;
            for (double w : row) sum += w;
            EXPECT_NEAR(sum, 1.0, 1e-6) << tr->maps[i].name;
        }
        EXPECT_FALSE(seqTranslationToJson(v, o.out, "reverse").empty());
    }
    EXPECT_EQ(tr->maps.back().name, "cross (last layer) through the encoder rollout");
    SeqEvalOptions eo;
    eo.limit = 8;
    auto report = (*model)->evaluate(eo);
    ASSERT_TRUE(report.ok());
    EXPECT_FALSE(report->permutationTested);
}

TEST(SeqTraining, TrainsOpensTranslatesAndEvaluates) {
    test::TempDir dir;
    SeqTrainOptions o;
    o.model = tinyConfig("additive");
    o.iterations = 6;
    o.batch = 8;
    o.evalEvery = 3;
    o.evalImages = 10;
    o.device = test::testDevice();
    o.out = dir.file("seq.pt");
    auto summary = trainSeqModel(o);
    ASSERT_TRUE(summary.ok()) << summary.error();
    auto model = SeqModel::open(o.out, test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    auto tr = (*model)->translate("31415");
    ASSERT_TRUE(tr.ok()) << tr.error();
    EXPECT_EQ(tr->source.size(), 5u);
    EXPECT_TRUE(tr->hasReference);
    ASSERT_FALSE(tr->alignment.empty());
    for (const auto& row : tr->alignment) {
        double sum = 0;
        for (double w : row) sum += w;
        EXPECT_NEAR(sum, 1.0, 1e-6);
    }
    const auto json = nlohmann::json::parse(seqTranslationToJson(*tr, o.out, "reverse"));
    EXPECT_EQ(json["schema"], "saccade.seq-trace");
    EXPECT_EQ(json["alignment"].size(), json["tokens"].size());
    auto unk = (*model)->translate("12x4");
    ASSERT_TRUE(unk.ok());
    EXPECT_EQ(unk->unknown, std::vector<std::string>{"x"});
    auto broken = (*model)->translate("1\xe4" "2");  // a Latin-1 byte: U+FFFD, valid UTF-8 in the JSON
    ASSERT_TRUE(broken.ok());
    EXPECT_EQ(broken->unknown, std::vector<std::string>{"\xef\xbf\xbd"});
    EXPECT_TRUE(nlohmann::json::accept(seqTranslationToJson(*broken, o.out, "reverse")));
    EXPECT_FALSE(unk->hasReference);
    EXPECT_FALSE((*model)->translate("   ").ok());
    EXPECT_FALSE((*model)->translate("123", "gumbel").ok());

    SeqEvalOptions eo;
    eo.limit = 30;
    auto report = (*model)->evaluate(eo);
    ASSERT_TRUE(report.ok()) << report.error();
    EXPECT_EQ(report->n, 30);
    EXPECT_GE(report->aer, 0.0);
    EXPECT_LE(report->aer, 1.0);
    std::int64_t counted = 0;
    for (const auto& b : report->byLength) counted += b.n;
    EXPECT_EQ(counted, 30);
    const auto rj = nlohmann::json::parse(seqEvalReportToJson(*report));
    for (const char* key : {"exact_match", "token_accuracy", "aer"}) EXPECT_TRUE(rj.contains(key)) << key;

    // Same seed and iterations: the same weights, so the same attention.
    o.out = dir.file("again.pt");
    ASSERT_TRUE(trainSeqModel(o).ok());
    auto again = SeqModel::open(o.out, test::testDevice());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->translate("31415")->alignment, tr->alignment);
}

}  // namespace
}  // namespace saccade
