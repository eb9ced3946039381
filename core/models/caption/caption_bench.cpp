#include "models/caption/caption_bench.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/timing.h"
#include "models/caption/caption_network.h"
#include "common/torch_errors.h"

namespace saccade {

Result<CaptionBenchResult> benchCaption(const CaptionBenchOptions& o) {
    if (o.batch < 1 || o.batch > 4096 || o.captions < 1 || o.captions > 100000 || o.steps < 1 || o.steps > 1000 ||
        o.repeats < 1 || o.repeats > 1000 || o.warmups < 0 || o.warmups > 100)
        return Error{"batch 1..4096, captions 1..100000, steps 1..1000, repeats 1..1000 and warmups 0..100"};
    if (o.vocabulary < 5 || o.length < 3) return Error{"vocabulary >= 5 and length >= 3"};
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    CaptionConfig c;
    c.grid = o.grid;
    c.imageSize = o.grid * 8;
    c.featureDim = o.featureDim;
    c.embed = o.embed;
    c.hidden = o.hidden;
    c.attnHidden = o.attnHidden;
    c.maxLength = o.length;
    c.vocabulary = {"<start>", "<end>", "<pad>", "<unk>"};
    for (int w = 4; w < o.vocabulary; ++w) c.vocabulary.push_back("w" + std::to_string(w));
    if (auto valid = validateCaptionConfig(c); !valid) return Error{valid.error()};
    CaptionBenchResult r;
    r.threads = torch::get_num_threads();
    r.device = device->str();
    try {
        torch::manual_seed(0);
        CaptionNetwork net(c);
        net->to(*device);
        const std::int64_t L = std::int64_t(o.grid) * o.grid;
        // Training: random annotations and captions of 6..length tokens (as the reference).
        const auto annotations = torch::randn({o.batch, L, o.featureDim}).to(*device);
        const auto lengths = torch::randint(6, o.length + 1, {o.batch}, torch::kLong);
        auto tokens = torch::randint(4, o.vocabulary, {o.batch, o.length}, torch::kLong);
        tokens.select(1, 0).fill_(kStartToken);
        const auto positions = torch::arange(o.length, torch::kLong).unsqueeze(0);
        tokens = torch::where(positions == (lengths - 1).unsqueeze(1), torch::full_like(tokens, kEndToken), tokens);
        tokens = torch::where(positions >= lengths.unsqueeze(1), torch::full_like(tokens, kPadToken), tokens).to(*device);
        torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
        net->train();
        SelectionOptions soft;
        Rng rng(1);
        const auto targets = tokens.narrow(1, 1, o.length - 1).transpose(0, 1);
        const auto mask = (targets != kPadToken).to(torch::kFloat);
        auto step = [&] {
            const auto out = net->teacherForced(annotations, tokens, soft, rng);
            const auto logp = torch::log_softmax(out.wordLogits, -1).gather(2, targets.unsqueeze(2)).squeeze(2);
            const auto ce = -(logp * mask).sum() / mask.sum();
            const auto coverage = (out.probs * mask.unsqueeze(2)).sum(0);
            const auto loss = ce + (1 - coverage).pow(2).mean();
            adam.zero_grad();
            loss.backward();
            adam.step();
        };
        r.trainStepMs = medianMs(o.repeats, [&] {
                            for (int s = 0; s < o.steps; ++s) step();
                        }, o.warmups) / o.steps;
        r.trainImagesPerSecond = o.batch / r.trainStepMs * 1000;

        // Stochastic captions of one image: a location sampled per word, greedy words.
        net->eval();
        torch::NoGradGuard noGrad;
        const auto one = torch::randn({1, L, o.featureDim}).to(*device);
        SelectionOptions sample;
        sample.rule = SelectionRule::Sample;
        std::vector<std::uint64_t> seeds(static_cast<std::size_t>(o.captions));
        for (std::size_t i = 0; i < seeds.size(); ++i) seeds[i] = 1 + i;
        r.captionsMs = medianMs(o.repeats, [&] {
            auto rows = Rng::perRow(seeds);
            const auto d = net->decode(one, sample, rows, 0, nullptr, o.captions);
            r.captionSteps = int(d.tokens.size(1));
        }, o.warmups);
    } catch (const c10::Error& e) {
        return Error{std::string("bench caption failed: ") + torchErrorLine(e)};
    }
    return r;
}

std::string captionBenchToJson(const CaptionBenchOptions& o, const CaptionBenchResult& r, int indent) {
    return nlohmann::json{{"device", r.device},
                          {"threads", r.threads},
                          {"sizes", {{"grid", o.grid}, {"enc_dim", o.featureDim}, {"embed", o.embed},
                                     {"hidden", o.hidden}, {"attn", o.attnHidden}, {"vocab", o.vocabulary},
                                     {"length", o.length}}},
                          {"train", {{"images_per_s", r.trainImagesPerSecond}, {"ms_per_step", r.trainStepMs},
                                     {"batch", o.batch}}},
                          {"captions", {{"ms", r.captionsMs}, {"n", o.captions}, {"steps", r.captionSteps}}}}
        .dump(indent);
}

}  // namespace saccade
