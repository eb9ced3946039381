#include "analysis/length/length_fidelity.h"

#include <algorithm>
#include <cmath>

#include <ATen/CPUGeneratorImpl.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/memory_meter.h"

namespace saccade {
namespace {

std::int64_t atLeastOne(double x) { return std::max<std::int64_t>(1, std::llround(x)); }

VariantFidelity compare(AttentionVariant variant, const VariantOptions& o, const FidelitySource& s,
                        const torch::Tensor& exactW, const torch::Tensor& exactOut, const torch::Tensor& rowValid) {
    VariantFidelity f;
    f.variant = variant;
    f.options = o;
    const auto w = variantWeights(variant, s.q, s.k, s.keep, o);
    const auto out = attendVariant(variant, s.q, s.k, s.v, s.keep, o);
    const auto tv = 0.5 * (w - exactW).abs().sum(-1);                                      // [B, H, N]
    const auto agree = (w.argmax(-1) == exactW.argmax(-1)).to(torch::kDouble);            // [B, H, N]
    const auto err = (out - exactOut).norm(2, {-1}) / exactOut.norm(2, {-1}).clamp_min(1e-12);  // [B, H, N]
    const auto valid = rowValid.unsqueeze(1).expand_as(tv);                               // [B, H, N]
    const auto count = valid.sum().item<double>();
    f.rows = std::int64_t(count);
    auto meanOver = [&](const torch::Tensor& x) { return (x.to(torch::kDouble) * valid).sum().item<double>() / count; };
    f.meanTv = meanOver(tv);
    f.maxTv = tv.masked_select(valid.to(torch::kBool)).max().item<double>();
    f.top1Agreement = meanOver(agree);
    f.meanOutputError = meanOver(err);
    f.maxAbsOutputError = ((out - exactOut).abs().amax(-1) * valid).max().item<double>();
    f.keysPerQuery = meanOver((w > 0).sum(-1));
    const std::vector<std::int64_t> batchAndHeads = {0, 1};
    if (variant == AttentionVariant::TopK) {
        // One hard-attention draw per row (seeded by the performer's seed), beside top_k's set.
        auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
        const auto rows = exactW.reshape({-1, exactW.size(-1)}).to(torch::kDouble);
        const auto drawn = at::multinomial(rows, 1, false, gen).view(tv.sizes());  // [B, H, N]
        // The kept set by rank (exact weights order the keys as the scores do), not by w > 0,
        // which a float32 weight that underflows to 0 would miss.
        const auto kept = torch::zeros_like(exactW, torch::kBool).scatter(-1, std::get<1>(exactW.topk(o.topK, -1)), true);
        f.hardSampleInTopK = meanOver(kept.gather(-1, drawn.unsqueeze(-1)).squeeze(-1));
        f.topKMass = meanOver((exactW * kept.to(exactW.scalar_type())).sum(-1));
    }
    const auto perQuery =
        ((tv.to(torch::kDouble) * valid).sum(batchAndHeads) / valid.sum(batchAndHeads).clamp_min(1)).contiguous();
    const double* first = perQuery.data_ptr<double>();
    f.tvByQuery.assign(first, first + perQuery.numel());
    return f;
}

}  // namespace

VariantOptions budgetOptions(std::int64_t n, double budget, std::int64_t features, std::uint64_t seed) {
    VariantOptions o;
    const double keys = budget * double(n);
    o.window = std::min(n, atLeastOne(keys / 2));
    // A block of keys/2 and summaries adding about as many; below sqrt(n) keys per side the
    // pattern cannot get that sparse (block + n / block >= 2 sqrt(n)), so it takes its sparsest.
    o.block = std::min(n, std::max(atLeastOne(keys / 2), atLeastOne(std::sqrt(double(n)))));
    const auto blocks = (n + o.block - 1) / o.block;
    o.summary = std::clamp(atLeastOne(keys / 2 / double(blocks)), std::int64_t(1), std::max<std::int64_t>(1, o.block - 1));
    o.topK = std::min(n, atLeastOne(keys));
    o.features = features;
    o.seed = seed;
    return o;
}

Result<std::vector<VariantFidelity>> measureFidelity(const FidelitySource& s, const FidelityOptions& options) {
    if (!(options.budget > 0 && options.budget <= 1)) return Error{"the budget must be in (0, 1]"};
    if (!s.q.defined() || s.q.dim() != 4 || s.q.size(2) == 0) return Error{s.name + ": no attention inputs"};
    return measureFidelityWith(s, options.variants, budgetOptions(s.q.size(2), options.budget, options.features, options.seed));
}

Result<std::vector<VariantFidelity>> measureFidelityWith(const FidelitySource& s,
                                                         const std::vector<AttentionVariant>& variants,
                                                         const VariantOptions& o) {
    if (!s.q.defined() || s.q.dim() != 4 || s.q.size(2) == 0) return Error{s.name + ": no attention inputs"};
    if (!s.k.defined() || s.k.sizes() != s.q.sizes()) return Error{s.name + ": not self-attention (keys differ in shape)"};
    const auto n = s.q.size(2), bh = s.q.size(0) * s.q.size(1);
    const double need = 6.0 * double(bh) * double(n) * double(n) * 8.0;
    const auto available = memory::availableSystemBytes();
    if (available > 0 && need > 0.8 * double(available))
        return Error{s.name + ": comparing " + std::to_string(bh) + " heads of " + std::to_string(n) + " x " +
                     std::to_string(n) + " attention needs about " + std::to_string(std::int64_t(need / 1e9)) +
                     " GB of memory; use a shorter length or fewer heads"};
    torch::NoGradGuard noGrad;
    const auto exactW = variantWeights(AttentionVariant::Full, s.q, s.k, s.keep, o);
    const auto exactOut = torch::matmul(exactW, s.v);
    // A padding query's row is not a real row; self-attention: query i is padding when key i is.
    const auto rowValid = s.keep.defined() ? s.keep.to(torch::kDouble) : torch::ones({s.q.size(0), n}, torch::kDouble);
    std::vector<VariantFidelity> out;
    for (auto variant : variants) {
        const auto problem = checkVariantOptions(variant, o, n, n);
        if (!problem.empty()) return Error{s.name + ": " + attentionVariantName(variant) + ": " + problem};
        out.push_back(compare(variant, o, s, exactW, exactOut, rowValid));
    }
    return out;
}

FidelitySource randomFidelitySource(std::int64_t n, std::int64_t dim, std::int64_t heads, std::uint64_t seed) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    auto draw = [&] { return at::normal(0.0, 1.0, {1, heads, n, dim}, gen, torch::TensorOptions()); };
    FidelitySource s;
    s.name = "random n=" + std::to_string(n);
    s.q = draw();
    s.k = draw();
    s.v = draw();
    return s;
}

FidelitySource positionalFidelitySource(std::int64_t n, std::int64_t dim, std::int64_t heads, std::uint64_t seed) {
    auto s = randomFidelitySource(n, dim, heads, seed);
    const auto pos = torch::arange(n, torch::kDouble).unsqueeze(1);
    const auto freq = torch::exp(-std::log(10000.0) * torch::arange(0, dim / 2, torch::kDouble) * 2.0 / double(dim));
    const auto angle = pos * freq.unsqueeze(0);  // [n, dim / 2]
    auto code = torch::zeros({n, dim}, torch::kDouble);
    code.narrow(1, 0, dim / 2).copy_(torch::sin(angle));
    code.narrow(1, dim / 2, dim / 2).copy_(torch::cos(angle));
    const auto shared = (2.0 * code).to(torch::kFloat).view({1, 1, n, dim});
    s.name = "positional n=" + std::to_string(n);
    s.q = s.q + shared;
    s.k = s.k + shared;
    return s;
}

std::string fidelityToJson(const std::vector<std::pair<FidelitySource, std::vector<VariantFidelity>>>& results,
                           const FidelityOptions& options, int indent) {
    nlohmann::ordered_json sources = nlohmann::ordered_json::array();
    for (const auto& [source, rows] : results) {
        nlohmann::ordered_json variants = nlohmann::ordered_json::object();
        for (const auto& f : rows) {
            const auto& o = f.options;
            variants[attentionVariantName(f.variant)] = {
                {"options", {{"window", o.window}, {"block", o.block}, {"summary", o.summary}, {"k", o.topK},
                             {"features", o.features}, {"feature_seed", o.seed}}},
                {"keys_per_query", f.keysPerQuery}, {"mean_tv", f.meanTv}, {"max_tv", f.maxTv},
                {"top1_agreement", f.top1Agreement}, {"mean_output_error", f.meanOutputError},
                {"max_abs_output_error", f.maxAbsOutputError}};
            if (f.hardSampleInTopK) {
                variants[attentionVariantName(f.variant)]["hard_sample_in_top_k"] = *f.hardSampleInTopK;
                variants[attentionVariantName(f.variant)]["top_k_mass"] = *f.topKMass;
            }
        }
        sources.push_back({{"name", source.name}, {"n", source.q.size(2)}, {"heads", source.q.size(1)},
                           {"rows", rows.empty() ? 0 : rows.front().rows}, {"variants", variants}});
    }
    nlohmann::ordered_json out = {{"schema", "saccade.length-fidelity"}, {"version", 1}, {"budget", options.budget},
                                  {"features", options.features}, {"feature_seed", options.seed}, {"sources", sources}};
    return out.dump(indent);
}

}  // namespace saccade
