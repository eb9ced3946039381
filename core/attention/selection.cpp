#include "attention/selection.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <torch/torch.h>

#include "attention/batched_products.h"
#include "common/parse.h"

namespace saccade {

namespace {

struct RuleName {
    SelectionRule rule;
    const char* name;
};
constexpr RuleName kRules[] = {{SelectionRule::Soft, "soft"},     {SelectionRule::Sample, "sample"},
                               {SelectionRule::Argmax, "argmax"}, {SelectionRule::TopK, "topk"},
                               {SelectionRule::KSample, "ksample"}, {SelectionRule::Gumbel, "gumbel"}};

const char* kAccepted = "soft, sample, argmax, topk:K, ksample:K, gumbel:TAU";

torch::Tensor gatherRows(const torch::Tensor& values, const torch::Tensor& indices) {
    // values [B, L, D], indices [B, K] -> [B, K, D]
    const auto index = indices.unsqueeze(-1).expand({-1, -1, values.size(2)});
    return values.gather(/*dim=*/1, index);
}

torch::Tensor weightedContext(const torch::Tensor& weights, const torch::Tensor& values) {
    return weightedRows(weights, values);
}

}  // namespace

std::string selectionRuleName(SelectionRule rule) {
    for (const auto& r : kRules)
        if (r.rule == rule) return r.name;
    return "?";
}

std::string selectionRuleSpec(const SelectionOptions& o) {
    const std::string name = selectionRuleName(o.rule);
    switch (o.rule) {
        case SelectionRule::TopK:
        case SelectionRule::KSample:
            return name + ":" + std::to_string(o.k);
        case SelectionRule::Gumbel: {
            std::ostringstream s;
            s << name << ":" << o.temperature;
            return s.str();
        }
        default:
            return name;
    }
}

Result<SelectionOptions> parseSelectionRule(const std::string& spec) {
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    const bool hasArg = colon != std::string::npos;
    const std::string arg = hasArg ? spec.substr(colon + 1) : std::string();
    SelectionOptions o;
    bool known = false;
    for (const auto& r : kRules) {
        if (name == r.name) {
            o.rule = r.rule;
            known = true;
        }
    }
    if (!known) return Error{"unknown selection rule '" + spec + "' (use " + kAccepted + ")"};
    switch (o.rule) {
        case SelectionRule::TopK:
        case SelectionRule::KSample: {
            o.k = o.rule == SelectionRule::TopK ? 1 : 10;
            if (hasArg) {
                auto k = parseInteger(arg, "K", 1, 1000000);
                if (!k) return Error{"rule '" + spec + "': K must be a whole number from 1 to 1000000"};
                o.k = *k;
            }
            break;
        }
        case SelectionRule::Gumbel: {
            if (hasArg) {
                // Below kMinGumbelTemperature the scores divided by tau overflow float32 and every
                // step would pick cell 0; argmax is that limit, and sample its stochastic twin.
                auto t = parseNumber(arg, "temperature");
                if (!t || *t < kMinGumbelTemperature || *t > kMaxGumbelTemperature) {
                    std::ostringstream s;
                    s << "rule '" << spec << "': the temperature must be a number from " << kMinGumbelTemperature
                      << " to " << kMaxGumbelTemperature << " (argmax is the limit of small temperatures)";
                    return Error{s.str()};
                }
                o.temperature = *t;
            }
            break;
        }
        default:
            if (hasArg) return Error{"rule '" + name + "' takes no parameter (got '" + spec + "')"};
    }
    return o;
}

torch::Tensor drawCategorical(const torch::Tensor& probs, const torch::Tensor& u) {
    const auto cdf = probs.detach().cumsum(/*dim=*/-1);
    const auto total = cdf.narrow(/*dim=*/-1, probs.size(-1) - 1, 1);  // [B, 1]
    const auto threshold = (u * total).unsqueeze(-1);                   // [B, K, 1]
    // Count the cumulative sums at or below the threshold: that many intervals lie before u.
    auto index = (cdf.unsqueeze(1) <= threshold).sum(/*dim=*/-1);
    return index.clamp_max(probs.size(-1) - 1).to(torch::kLong);
}

Selection select(const torch::Tensor& scores, const torch::Tensor& values,
                 const SelectionOptions& o, Rng& rng) {
    TORCH_CHECK(scores.dim() == 2, "scores must be [B, L], got ", scores.sizes());
    TORCH_CHECK(values.dim() == 3, "values must be [B, L, D], got ", values.sizes());
    TORCH_CHECK(scores.size(0) == values.size(0) && scores.size(1) == values.size(1),
                "scores ", scores.sizes(), " and values ", values.sizes(),
                " disagree on batch or locations");
    TORCH_CHECK(scores.size(1) > 0, "no locations to select from");
    if (o.checkFinite)
        TORCH_CHECK(!scores.isnan().any().item<bool>(), "attention scores contain NaN");

    const auto B = scores.size(0);
    const auto L = scores.size(1);
    const auto device = scores.device();
    Selection s;
    const auto logp = torch::log_softmax(scores, /*dim=*/-1);
    s.probs = logp.exp();
    // 0 * log 0 = 0 at masked locations, with a finite gradient.
    s.entropy = -(s.probs * logp.masked_fill(s.probs == 0, 0)).sum(/*dim=*/-1);

    auto pick = [&](const torch::Tensor& indices) {
        s.indices = indices;
        s.logProb = logp.gather(/*dim=*/1, indices).sum(/*dim=*/-1);
    };
    auto oneHot = [&](const torch::Tensor& indices) {
        return torch::zeros_like(s.probs).scatter_(/*dim=*/1, indices, 1.0);
    };

    switch (o.rule) {
        case SelectionRule::Soft:
            s.indices = torch::empty({B, 0}, torch::TensorOptions().dtype(torch::kLong).device(device));
            s.logProb = torch::zeros({B}, scores.options());
            s.weights = s.probs;
            break;
        case SelectionRule::Sample:
            pick(drawCategorical(s.probs, rng.uniform({B, 1}, device)));
            s.weights = oneHot(s.indices);
            break;
        case SelectionRule::Argmax:
            pick(s.probs.detach().argmax(/*dim=*/-1, /*keepdim=*/true));
            s.weights = oneHot(s.indices);
            break;
        case SelectionRule::TopK: {
            TORCH_CHECK(o.k >= 1 && o.k <= L, "topk needs 1 <= k <= L = ", L, ", got k = ", o.k);
            s.indices = std::get<1>(s.probs.detach().topk(o.k, /*dim=*/-1));
            const auto chosen = s.probs.gather(1, s.indices);
            const auto mass = chosen.sum(/*dim=*/-1, /*keepdim=*/true);
            s.logProb = mass.log().squeeze(-1);
            s.weights = torch::zeros_like(s.probs).scatter(1, s.indices, chosen / mass);
            break;
        }
        case SelectionRule::KSample: {
            TORCH_CHECK(o.k >= 1, "ksample needs K >= 1, got ", o.k);
            pick(drawCategorical(s.probs, rng.uniform({B, o.k}, device)));
            const auto share = torch::full({B, o.k}, 1.0 / static_cast<double>(o.k), scores.options());
            s.weights = torch::zeros_like(s.probs).scatter_add(1, s.indices, share);
            break;
        }
        case SelectionRule::Gumbel: {
            TORCH_CHECK(o.temperature >= kMinGumbelTemperature && o.temperature <= kMaxGumbelTemperature,
                        "gumbel needs a temperature from ", kMinGumbelTemperature, " to ", kMaxGumbelTemperature,
                        ", got ", o.temperature);
            constexpr double kEps = 1e-10;
            const auto u = rng.uniform({B, L}, device).clamp(kEps, 1.0 - 1e-7).to(scores.dtype());
            const auto gumbel = -torch::log(-torch::log(u));
            // Masked locations keep -inf logits and so zero relaxed weight.
            const auto relaxed = torch::softmax((logp + gumbel) / o.temperature, /*dim=*/-1);
            pick(relaxed.detach().argmax(/*dim=*/-1, /*keepdim=*/true));
            s.weights = oneHot(s.indices) - relaxed.detach() + relaxed;
            break;
        }
    }
    // A single hard choice reads its row directly; the other rules weight all L rows.
    const bool singleRow = o.rule == SelectionRule::Sample || o.rule == SelectionRule::Argmax;
    s.context = singleRow ? gatherRows(values, s.indices).squeeze(/*dim=*/1)
                          : weightedContext(s.weights, values);
    return s;
}

}  // namespace saccade
