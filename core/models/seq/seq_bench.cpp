#include "models/seq/seq_bench.h"

#include <chrono>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/timing.h"
#include "models/seq/seq_model.h"
#include "models/seq/seq_network.h"

namespace saccade {

Result<SeqBenchResult> benchSeq(const SeqBenchOptions& o) {
    if (o.batch < 1 || o.batch > 65536 || o.sentences < 1 || o.sentences > 1000000) return Error{"batch or sentences out of range"};
    if (o.repeats < 1 || o.repeats > 1000) return Error{"repeats must be 1..1000"};
    if (o.warmups < 0 || o.warmups > 100) return Error{"warmups must be 0..100"};
    if (o.sourceLength < 1 || o.targetLength < 2) return Error{"the source needs 1 token and the target 2"};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    SeqBenchResult r;
    r.threads = torch::get_num_threads();
    r.device = device->str();
    auto sync = [&] { if (device->is_cuda()) torch::cuda::synchronize(); };
    try {
        for (const auto& scorer : o.scorers) {
            SeqConfig c;
            c.task = "bench";
            c.scorer = scorer;
            c.sourceVocab = c.targetVocab = 48;
            c.maxTarget = o.targetLength - 1;
            if (auto valid = validateSeqConfig(c); !valid) return Error{valid.error()};
            torch::manual_seed(0);
            SeqNetwork net(c);
            net->to(*device);
            torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
            const auto ids = torch::TensorOptions().dtype(torch::kLong).device(*device);
            const auto src = torch::randint(4, 48, {o.batch, o.sourceLength}, ids);
            const auto tgt = torch::randint(4, 48, {o.batch, o.targetLength}, ids);
            const auto lengths = torch::full({o.batch}, o.sourceLength, torch::kLong);
            const auto input = tgt.narrow(1, 0, o.targetLength - 1), output = tgt.narrow(1, 1, o.targetLength - 1);
            SelectionOptions soft;
            soft.checkFinite = false;
            Rng rng(1);
            SeqBenchScorer s;
            s.scorer = scorer;
            net->train();
            auto step = [&] {
                const auto steps = net->teacherForced(net->encode(src, lengths), input, soft, rng);
                const auto loss = torch::cross_entropy_loss(steps.logits.reshape({-1, 48}), output.reshape({-1}));
                adam.zero_grad();
                loss.backward();
                adam.step();
                sync();
            };
            for (int i = 0; i < 3; ++i) step();
            s.trainStepMs = medianMs(o.repeats, [&] { for (int i = 0; i < 4; ++i) step(); }, o.warmups) / 4;
            s.trainSentencesPerSecond = 1000.0 * o.batch / s.trainStepMs;
            net->eval();
            torch::NoGradGuard noGrad;
            const auto many = torch::randint(4, 48, {o.sentences, o.sourceLength}, ids);
            const auto manyLengths = torch::full({o.sentences}, o.sourceLength, torch::kLong);
            auto translate = [&] {
                net->decode(net->encode(many, manyLengths), o.targetLength - 1, soft, rng, /*stopWhenDone=*/false);
                sync();
            };
            s.translateMs = medianMs(o.repeats, translate, o.warmups);
            r.scorers.push_back(s);
        }
    } catch (const c10::Error& e) {
        return Error{std::string("benchmark failed: ") + firstLine(e.what_without_backtrace())};
    }
    if (!o.model.empty()) {
        auto model = SeqModel::open(o.model, o.device);
        if (!model) return Error{model.error()};
        const std::string text = (*model)->taskName() == "dates" ? "Wednesday, 22nd of September 2021 ok, yes"
                                 : (*model)->taskName() == "toy-translation" ? "the big dog sees a small cat near the old river"
                                                                                : "1234567890123456789012345678901234567890";
        r.oneSentenceChars = int(text.size());
        (*model)->translate(text);
        r.oneSentenceMs = medianMs(o.repeats, [&] { (void)(*model)->translate(text); });
    }
    return r;
}

std::string seqBenchToJson(const SeqBenchOptions& o, const SeqBenchResult& r) {
    nlohmann::json scorers = nlohmann::json::object();
    for (const auto& s : r.scorers)
        scorers[s.scorer] = {{"train", {{"ms_per_step", s.trainStepMs}, {"sentences_per_s", s.trainSentencesPerSecond}}},
                             {"translate", {{"ms", s.translateMs}, {"sentences", o.sentences}}}};
    nlohmann::json j{{"device", r.device},
                     {"threads", r.threads},
                     {"sizes", {{"embed", 64}, {"encoder_hidden", 128}, {"decoder_hidden", 256}, {"attention", 128},
                                {"vocab", 48}, {"source", o.sourceLength}, {"target", o.targetLength}, {"batch", o.batch}}},
                     {"scorers", scorers}};
    if (!r.scorers.empty()) {
        j["train"] = scorers[r.scorers.front().scorer]["train"];
        j["translate"] = scorers[r.scorers.front().scorer]["translate"];
    }
    if (!o.model.empty()) j["one_sentence"] = {{"model", o.model}, {"chars", r.oneSentenceChars}, {"ms", r.oneSentenceMs}};
    return j.dump(2);
}

}  // namespace saccade
