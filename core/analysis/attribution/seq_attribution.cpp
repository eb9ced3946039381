#include "analysis/attribution/seq_attribution.h"

#include "analysis/attribution/attribution_gradients.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <torch/torch.h>

#include "analysis/attribution/path_quadrature.h"
#include "models/seq_gradient_forward.h"
#include "models/translation_maps.h"
#include "models/text_encoder.h"
#include "models/translator.h"

namespace saccade {

namespace {

// Sentences per forward: integrated gradients' points of every step go in chunks of this many.
constexpr std::int64_t kSeqAttributionChunk = 256;

struct SeqRun {
    SeqGradientForward& f;
    const SeqForcedInput& in;
    std::string rule;
    std::int64_t T = 0, S = 0;
    std::int64_t forwards = 0;
    torch::Tensor targets;  // [T] int64 on the model's device
};

// The logit of target token t at step t of each row, row r explaining step `steps[r]`.
torch::Tensor stepLogits(SeqRun& run, const torch::Tensor& embedded, const torch::Tensor& steps) {
    const auto B = embedded.size(0);
    run.forwards += B;
    const auto out = run.f.forced(embedded, run.in.source.expand({B, run.S}), run.in.input.expand({B, run.T}), run.rule);
    const auto rows = torch::arange(B, steps.options());
    return out.logits.index({rows, steps, run.targets.index({steps})});
}

// d logit_{steps[r]} / d embedded[r] for every row, in chunks; each row weighted by `weights[r]`.
torch::Tensor rowGradients(SeqRun& run, const torch::Tensor& embedded, const torch::Tensor& steps,
                           const torch::Tensor& weights) {
    torch::AutoGradMode enable(true);
    std::vector<torch::Tensor> parts;
    for (std::int64_t first = 0; first < embedded.size(0); first += kSeqAttributionChunk) {
        const auto last = std::min(embedded.size(0), first + kSeqAttributionChunk);
        auto chunk = embedded.slice(0, first, last).detach().requires_grad_(true);
        // The rows are independent sentences: the gradient of the weighted sum is each row's own.
        const auto score = (stepLogits(run, chunk, steps.slice(0, first, last)) * weights.slice(0, first, last)).sum();
        requireAnswerGraph(score);
        parts.push_back(torch::autograd::grad({score}, {chunk})[0]);
    }
    return torch::cat(parts);
}

torch::Tensor everyStep(const SeqRun& run) { return torch::arange(run.T, run.targets.options()); }

// [T, S, E] gradients of each step's logit at the input.
torch::Tensor inputGradient(SeqRun& run) {
    const auto x = run.in.embedded.repeat({run.T, 1, 1});
    return rowGradients(run, x, everyStep(run), torch::ones({run.T}, x.options()));
}

torch::Tensor integratedGradients(SeqRun& run, const SeqAttributionOptions& o, SeqAttribution& out) {
    const auto q = pathQuadrature(o.steps, o.quadrature);
    const auto P = std::int64_t(q.alphas.size());
    const auto x = run.in.embedded[0];  // [S, E]
    const auto base = o.baseline == "unknown" ? run.in.unknown.unsqueeze(0).expand_as(x) : torch::zeros_like(x);
    const auto opts = x.options();
    const auto alphas = torch::tensor(q.alphas, torch::kDouble).to(opts).repeat({run.T});  // row t * P + k
    const auto weights = torch::tensor(q.weights, torch::kDouble).to(opts).repeat({run.T});
    const auto steps = everyStep(run).repeat_interleave(P);
    const auto path = base.unsqueeze(0) + alphas.view({-1, 1, 1}) * (x - base).unsqueeze(0);
    const auto grads = rowGradients(run, path, steps, weights).view({run.T, P, run.S, -1}).sum(1);  // [T, S, E]
    const auto values = (grads * (x - base).unsqueeze(0)).sum(-1);                                 // [T, S]
    // Completeness: f_t(x) - f_t(baseline) against the sum over the source.
    torch::NoGradGuard noGrad;
    const auto ends = torch::stack({x, base.contiguous()}).repeat_interleave(run.T, 0);
    const auto f = stepLogits(run, ends, everyStep(run).repeat({2})).to(torch::kDouble).cpu();
    const auto sums = values.sum(-1).to(torch::kDouble).cpu();
    double error = 0;
    int counted = 0;
    for (std::int64_t t = 0; t < run.T; ++t) {
        const double d = f[t].item<double>() - f[run.T + t].item<double>(), s = sums[t].item<double>();
        out.difference.push_back(d);
        out.attributionSum.push_back(s);
        if (std::abs(d) > 1e-6) {
            error += std::abs(s - d) / std::abs(d);
            ++counted;
        }
    }
    if (counted) out.completenessError = error / counted;
    out.baseline = o.baseline;
    return values;
}

// [T, S] fall of each step's target probability with token s read as <unk>.
torch::Tensor occlusion(SeqRun& run) {
    torch::NoGradGuard noGrad;
    const auto x = run.in.embedded[0];
    auto copies = x.unsqueeze(0).repeat({run.S + 1, 1, 1});
    for (std::int64_t s = 0; s < run.S; ++s) copies[s][s].copy_(run.in.unknown);
    run.forwards += run.S + 1;
    const auto out = run.f.forced(copies, run.in.source.expand({run.S + 1, run.S}),
                                  run.in.input.expand({run.S + 1, run.T}), run.rule);
    const auto probs = torch::softmax(out.logits.narrow(1, 0, run.T).to(torch::kDouble), -1);  // [S + 1, T, V]
    const auto p = probs.gather(2, run.targets.view({1, run.T, 1}).expand({run.S + 1, run.T, 1})).squeeze(2);
    return (p[run.S].unsqueeze(0) - p.narrow(0, 0, run.S)).t();  // [T, S]
}

// The attention, or for "rollout" the last cross-attention through the encoder's rollout.
torch::Tensor attentionRows(SeqRun& run, bool rollout) {
    torch::NoGradGuard noGrad;
    run.forwards += 1;
    const auto out = run.f.forced(run.in.embedded, run.in.source, run.in.input, run.rule);
    if (!rollout) return out.alpha[0].narrow(0, 0, run.T);
    const auto lastCross = out.cross[0][out.cross.size(1) - 1].mean(0).narrow(0, 0, run.T).to(torch::kCPU, torch::kDouble);
    return torch::matmul(lastCross, encoderRollout(out.encoderSelf[0]));
}

torch::Tensor methodValues(SeqRun& run, const SeqAttributionOptions& o, SeqAttribution& out) {
    if (o.method == "attention" || o.method == "rollout") return attentionRows(run, o.method == "rollout");
    if (o.method == "occlusion") return occlusion(run);
    if (o.method == "integrated-gradients") return integratedGradients(run, o, out);
    const auto g = inputGradient(run);  // [T, S, E]
    if (o.method == "gradient") return g.norm(2, -1);
    return (g * run.in.embedded).sum(-1);  // gradient-x-input
}

void fillRows(const torch::Tensor& values, const std::string& method, SeqAttribution& out) {
    out.signedRows = matrixRows(values.detach());
    for (const auto& row : out.signedRows) {
        std::vector<double> mag(row.size());
        for (std::size_t s = 0; s < row.size(); ++s)
            mag[s] = method == "occlusion" ? std::max(0.0, row[s]) : std::abs(row[s]);
        double total = 0;
        for (double v : mag) total += v;
        int best = -1;
        for (std::size_t s = 0; s < mag.size(); ++s) {
            mag[s] = total > 0 ? mag[s] / total : 0.0;
            if (total > 0 && (best < 0 || mag[s] > mag[size_t(best)])) best = int(s);
        }
        out.rows.push_back(std::move(mag));
        out.pointed.push_back(best);
    }
}

}  // namespace

const std::vector<std::string>& seqAttributionMethods() {
    static const std::vector<std::string> methods{"attention", "rollout", "gradient", "gradient-x-input",
                                                  "integrated-gradients", "occlusion"};
    return methods;
}

Result<Unit> checkSeqMethod(const std::string& method, const SeqGradientForward& f) {
    const auto& all = seqAttributionMethods();
    if (std::find(all.begin(), all.end(), method) == all.end()) {
        std::string names;
        for (const auto& m : all) names += (names.empty() ? "" : ", ") + m;
        return Error{"unknown method '" + method + "' for a sequence model (use " + names + ")"};
    }
    if (method == "rollout" && !f.hasLayerAttention())
        return Error{"rollout needs a Transformer's layers of attention; this recurrent model has one attention per step"};
    return Unit{};
}

Result<SeqAttribution> attributeSentence(SeqGradientForward& f, const std::vector<std::string>& source,
                                         const std::vector<std::string>& target, const SeqAttributionOptions& o) {
    if (auto ok = checkSeqMethod(o.method, f); !ok) return Error{ok.error()};
    if (o.steps < 1) return Error{"--steps must be at least 1, got " + std::to_string(o.steps)};
    if (o.baseline != "zero" && o.baseline != "unknown")
        return Error{"unknown baseline '" + o.baseline + "' for a sentence (use zero or unknown)"};
    if (o.quadrature != "gauss-legendre" && o.quadrature != "trapezoid" && o.quadrature != "midpoint")
        return Error{"unknown quadrature '" + o.quadrature + "' (use gauss-legendre, trapezoid or midpoint)"};
    const auto rules = f.rules();
    const auto rule = o.rule.empty() ? rules.front() : o.rule;
    if (std::find(rules.begin(), rules.end(), rule) == rules.end()) {
        std::string names;
        for (const auto& r : rules) names += (names.empty() ? "" : " or ") + r;
        return Error{"rule '" + rule + "' cannot be differentiated (use " + names + ")"};
    }
    auto in = f.prepare(source, target);
    if (!in) return Error{in.error()};
    const auto t0 = std::chrono::steady_clock::now();
    SeqAttribution out;
    out.method = o.method;
    out.rule = rule;
    out.source = source;
    out.target = target;
    try {
        out.target.push_back("</s>");
        SeqRun run{f, *in, rule, std::int64_t(in->targetIds.size()), std::int64_t(source.size())};
        run.targets = torch::tensor(in->targetIds, torch::kLong).to(in->source.device());
        fillRows(methodValues(run, o, out), o.method, out);
        out.forwards = run.forwards;
    } catch (const c10::Error& e) {
        return Error{o.method + " failed: " + firstLine(e.what_without_backtrace())};
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

Result<SeqAttribution> attributeTranslation(const Translator& model, const std::vector<std::string>& source,
                                            const std::vector<std::string>& target, const SeqAttributionOptions& options) {
    // As translate() reads at most kMaxSeqTokens of source, an explained output is as bounded:
    // its decoder's memory grows with the square of its length.
    if (target.size() > kMaxSeqTokens)
        return Error{"the output explained holds " + std::to_string(target.size()) + " tokens; at most " +
                     std::to_string(kMaxSeqTokens) + " are read"};
    if (model.asTextEncoder())
        return Error{writesNoTextLine(model, "it has no output tokens to attribute to the text")};
    auto* f = model.gradientForward();
    if (!f)
        return Error{model.path() + " offers no teacher-forced forward over its source's embeddings (an import's contract "
                     "has no entry for them), so no attribution map can be made of it: only its attention is shown"};
    return attributeSentence(*f, source, target, options);
}

SeqTranslation withAttribution(const SeqTranslation& t, const SeqAttribution& a) {
    SeqTranslation v = t;
    v.rule = a.method + " (" + a.rule + ")";
    v.source = a.source;
    v.tokens = a.target;
    v.alignment = a.rows;
    v.chosen.assign(a.rows.size(), -1);
    v.centre.clear();
    v.entropy.clear();
    for (const auto& row : a.rows) {
        double h = 0;
        for (double w : row) h -= w > 0 ? w * std::log(w) : 0;
        v.entropy.push_back(h);
    }
    v.topWords.resize(a.rows.size());
    v.maps.clear();
    return v;
}

}  // namespace saccade
