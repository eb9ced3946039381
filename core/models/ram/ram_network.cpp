#include "models/ram/ram_network.h"

#include <torch/torch.h>

#include <cmath>

namespace saccade {

RamNetworkImpl::RamNetworkImpl(const RamConfig& c) : m_config(c) {
    const GlimpseGeometry g = geometry();
    m_glimpse = register_module("glimpse", torch::nn::Linear(g.features(), c.glimpseHidden));
    m_location = register_module("location", torch::nn::Linear(2, c.glimpseHidden));
    m_whatToG = register_module("what_to_g", torch::nn::Linear(c.glimpseHidden, c.glimpseDim));
    m_whereToG = register_module("where_to_g", torch::nn::Linear(c.glimpseHidden, c.glimpseDim));
    if (c.core == "lstm") {
        m_lstm = register_module("core", torch::nn::LSTMCell(c.glimpseDim, c.hidden));
    } else {
        m_inputToHidden = register_module("input_to_hidden", torch::nn::Linear(c.glimpseDim, c.hidden));
        m_hiddenToHidden = register_module("hidden_to_hidden",
                                           torch::nn::Linear(torch::nn::LinearOptions(c.hidden, c.hidden).bias(false)));
    }
    m_policy = register_module("policy", torch::nn::Linear(c.hidden, 2));
    m_baseline = register_module("baseline", torch::nn::Linear(c.hidden, 1));
    m_classifier = register_module("classifier", torch::nn::Linear(c.hidden, c.classes));
}

GlimpseGeometry RamNetworkImpl::geometry() const {
    GlimpseGeometry g;
    g.imageWidth = g.imageHeight = m_config.imageSize;
    g.size = m_config.glimpseSize;
    g.scales = m_config.scales;
    g.factor = m_config.scaleFactor;
    g.channels = m_config.inChannels;
    return g;
}

RamOutput RamNetworkImpl::forward(const torch::Tensor& images, RamRule rule, Rng& rng, bool wantStepLogits,
                                  std::int64_t episodes) {
    TORCH_CHECK(images.dim() == 4 && images.size(1) == m_config.inChannels &&
                    images.size(2) == m_config.imageSize && images.size(3) == m_config.imageSize,
                "RAM: images must be [B, ", m_config.inChannels, ", ", m_config.imageSize, ", ",
                m_config.imageSize, "], got ", images.sizes());
    TORCH_CHECK(episodes == 1 || images.size(0) == 1, "RAM: episodes > 1 needs a single image");
    const auto device = images.device();
    const std::int64_t b = episodes > 1 ? episodes : images.size(0);
    if (m_clock) m_clock->start();
    const auto sat = summedAreaTable(images);
    lapIf(m_clock, "glimpse sensor");
    const double sigma = m_config.locationStd;
    const double logNorm = -std::log(sigma) - 0.5 * std::log(2 * M_PI);

    auto h = torch::zeros({b, m_config.hidden}, images.options());
    auto cell = m_lstm.is_empty() ? torch::Tensor() : torch::zeros({b, m_config.hidden}, images.options());
    auto l = rule == RamRule::Random ? rng.uniform({b, 2}, device) * 2 - 1 : torch::zeros({b, 2}, images.options());
    std::vector<torch::Tensor> locations, means, logProbs, baselines, stepLogits;
    RamOutput out;
    locations.push_back(l);
    means.push_back(l);
    logProbs.push_back(torch::zeros({b}, images.options()));
    // Episodes of one image all take their first glimpse at the centre: that step is the same
    // for every episode, so it runs on one row and is broadcast (a sixth of the work at T = 6).
    const bool shareFirst = episodes > 1 && rule != RamRule::Random;
    bool sameState = false;  // every row holds the same h (after the shared first step)
    for (int t = 0; t < m_config.glimpses; ++t) {
        const bool shared = shareFirst && t == 0;
        const auto lt = shared ? l.narrow(0, 0, 1) : l;
        const auto what = glimpseFeatures(sat, lt, episodes > 1 && !shared, out.glimpsesComputed);
        const auto g = torch::relu(what + m_whereToG(torch::relu(m_location(lt))));
        lapIf(m_clock, "glimpse network");
        if (m_lstm.is_empty()) {
            auto input = m_inputToHidden(g);
            // W h is one row when all rows share h, and nothing at all while h = 0.
            if (t > 0) input = input + m_hiddenToHidden(sameState ? h.narrow(0, 0, 1) : h);
            h = torch::relu(input);
        } else {
            auto state = m_lstm(g, shared ? std::make_tuple(h.narrow(0, 0, 1), cell.narrow(0, 0, 1))
                                          : std::make_tuple(h, cell));
            h = std::get<0>(state);
            cell = std::get<1>(state);
        }
        lapIf(m_clock, "recurrent core");
        sameState = shared;
        if (shared) {
            h = h.expand({b, m_config.hidden});
            if (cell.defined()) cell = cell.expand({b, m_config.hidden});
        }
        baselines.push_back(m_baseline(h.detach()).squeeze(1));
        if (wantStepLogits) stepLogits.push_back(m_classifier(h));
        if (t + 1 == m_config.glimpses) break;
        const auto mu = torch::tanh(m_policy(h.detach()));
        torch::Tensor next;
        if (rule == RamRule::Sample)
            next = mu.detach() + sigma * rng.normal({b, 2}, device);
        else if (rule == RamRule::Mean)
            next = mu.detach();
        else
            next = rng.uniform({b, 2}, device) * 2 - 1;
        // log N(next; mu, sigma) summed over x and y: the score function of the REINFORCE term.
        logProbs.push_back((-(next - mu).pow(2) / (2 * sigma * sigma) + logNorm).sum(1));
        l = next.clamp(-1, 1);
        locations.push_back(l);
        means.push_back(mu.detach());
        lapIf(m_clock, "policy + baseline");
    }
    lapIf(m_clock, "policy + baseline");
    out.logits = m_classifier(h);
    lapIf(m_clock, "classifier");
    if (wantStepLogits) out.stepLogits = torch::stack(stepLogits);
    out.locations = torch::stack(locations);
    out.means = torch::stack(means);
    out.logProb = torch::stack(logProbs);
    out.baselines = torch::stack(baselines);
    return out;
}

torch::Tensor RamNetworkImpl::glimpseFeatures(const torch::Tensor& sat, const torch::Tensor& l, bool dedupe,
                                              std::int64_t& computed) {
    const GlimpseGeometry geo = geometry();
    const auto centres = glimpseCentres(l, geo);
    auto features = [&](const torch::Tensor& at) {
        computed += at.size(0);
        const auto glimpses = extractGlimpsesAt(sat, at, geo);
        lapIf(m_clock, "glimpse sensor");
        return m_whatToG(torch::relu(m_glimpse(glimpses)));
    };
    if (!dedupe) return features(centres);
    // Episodes of one image whose centre pixels coincide see the same glimpse: the two glimpse
    // layers run once per distinct centre, and the rows are gathered back. Exact.
    const std::int64_t stride = geo.imageWidth + 1;
    const auto key = centres.select(1, 1) * stride + centres.select(1, 0);
    const auto found = torch::_unique(key, /*sorted=*/true, /*return_inverse=*/true);
    const torch::Tensor& keys = std::get<0>(found);
    if (keys.size(0) == key.size(0)) return features(centres);
    const auto distinct = torch::stack({keys.remainder(stride), torch::div(keys, stride, "floor")}, 1);
    return features(distinct).index_select(0, std::get<1>(found));
}

RamLoss ramHybridLoss(const RamOutput& out, const torch::Tensor& labels) {
    using torch::indexing::Slice;
    RamLoss l;
    l.crossEntropy = torch::nll_loss(torch::log_softmax(out.logits, -1), labels);
    l.reward = (out.logits.argmax(-1) == labels).to(torch::kFloat).detach();
    l.baseline = (out.baselines - l.reward.unsqueeze(0)).pow(2).mean();
    const auto steps = out.logProb.size(0);
    const auto advantage = (l.reward.unsqueeze(0) - out.baselines.index({Slice(0, steps - 1)})).detach();
    l.reinforce = -(out.logProb.index({Slice(1, steps)}) * advantage).sum(0).mean();
    l.total = l.crossEntropy + l.baseline + l.reinforce;
    return l;
}

}  // namespace saccade
