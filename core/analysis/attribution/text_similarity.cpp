#include "analysis/attribution/text_similarity.h"

#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "analysis/attribution/path_quadrature.h"
#include "common/torch_errors.h"
#include "models/text_encoder.h"
#include "models/text_encoder_forward.h"

namespace saccade {

namespace {

constexpr std::int64_t kPointsPerBatch = 16;  ///< path points through the model at once

torch::Tensor cosine(const torch::Tensor& e, const torch::Tensor& other) {  // [B, E] x [E] -> [B]
    return torch::matmul(e, other) / (e.norm(2, -1) * other.norm()).clamp_min(1e-12);
}

struct Side {
    const TextEncoderInput* in;
    torch::Tensor other;  ///< the other sentence's embedding [E], no graph
};

// Integrated gradients of cos(sentence(rows), other) over one sentence's rows.
Result<SentenceAttribution> attributeSide(TextEncoderForward& f, const Side& side, const torch::Tensor& baseline,
                                          const PathQuadrature& path, const std::function<bool(std::int64_t)>& tick,
                                          std::int64_t& forwards) {
    const auto& x = side.in->rows;
    const auto delta = x - baseline;
    auto meanGrad = torch::zeros_like(x);
    const auto points = std::int64_t(path.alphas.size());
    for (std::int64_t k0 = 0; k0 < points; k0 += kPointsPerBatch) {
        const auto n = std::min(kPointsPerBatch, points - k0);
        std::vector<double> alphas(path.alphas.begin() + k0, path.alphas.begin() + k0 + n);
        std::vector<double> weights(path.weights.begin() + k0, path.weights.begin() + k0 + n);
        const auto a = torch::tensor(alphas, x.options()).view({n, 1, 1});
        const auto w = torch::tensor(weights, x.options());
        auto rows = (baseline + a * delta).detach().requires_grad_(true);
        const auto sims = cosine(f.sentence(rows), side.other);
        const auto grads = torch::autograd::grad({(sims * w).sum()}, {rows})[0];
        meanGrad += grads.sum(0, true).detach();
        forwards += n;
        if (!tick(n)) return Error{"similarity cancelled"};
    }
    SentenceAttribution out;
    out.pieces = side.in->pieces;
    const auto values = (delta * meanGrad).sum(-1)[0].to(torch::kCPU, torch::kDouble).contiguous();
    out.values.assign(values.data_ptr<double>(), values.data_ptr<double>() + values.numel());
    for (double v : out.values) out.sum += v;
    torch::NoGradGuard noGrad;
    const auto ends = cosine(f.sentence(torch::cat({x, baseline})), side.other);
    forwards += 2;
    out.difference = ends[0].item<double>() - ends[1].item<double>();
    if (std::abs(out.difference) > 1e-9) out.completenessError = std::abs(out.sum - out.difference) / std::abs(out.difference);
    return out;
}

}  // namespace

Result<Unit> checkSimilarityOptions(const SimilarityOptions& o) {
    if (o.steps < 1 || o.steps > 4096) return Error{"--steps must be from 1 to 4096, not " + std::to_string(o.steps)};
    if (o.quadrature != "gauss-legendre" && o.quadrature != "trapezoid" && o.quadrature != "midpoint")
        return Error{"unknown quadrature '" + o.quadrature + "' (use gauss-legendre, trapezoid or midpoint)"};
    if (o.baseline != "pad" && o.baseline != "zero" && o.baseline != "auto")
        return Error{"unknown baseline '" + o.baseline + "' (use pad, every piece the padding piece's row, zero, or auto)"};
    return Unit{};
}

Result<SentenceSimilarity> attributeSimilarity(const Translator& model, const std::string& a, const std::string& b,
                                               const SimilarityOptions& options, const Progress& progress) {
    if (auto ok = checkSimilarityOptions(options); !ok) return Error{ok.error()};
    const TextEncoder* encoder = model.asTextEncoder();
    if (!encoder)
        return Error{model.path() + " writes text: similarity compares the sentence embeddings of a text encoder (an import "
                     "with an encode method; docs/model-contract.md)"};
    TextEncoderForward* f = encoder->encoderForward();
    if (!f)
        return Error{model.path() + " has no embed and encode_embedded methods, so its similarity cannot be attributed to "
                     "its pieces (docs/model-contract.md, \"Text encoders\")"};
    const auto t0 = std::chrono::steady_clock::now();
    SentenceSimilarity out;
    out.model = model.path();
    out.options = options;
    const std::string texts[2] = {a, b};
    TextEncoderInput in[2];
    for (int i = 0; i < 2; ++i) {
        auto p = f->prepare(texts[i]);
        if (!p) return Error{(i == 0 ? "the first sentence: " : "the second sentence: ") + p.error()};
        in[i] = std::move(*p);
    }
    if (out.options.baseline == "auto") out.options.baseline = in[0].hasPad ? "pad" : "zero";
    if (out.options.baseline == "pad" && !in[0].hasPad)
        return Error{model.path() + "'s vocabulary has no padding piece (a \"[PAD]\" entry or pad_token) to start the path "
                     "from: use --baseline zero"};
    const auto path = pathQuadrature(options.steps, options.quadrature);
    const double total = 2.0 * double(path.alphas.size());
    double done = 0;
    auto tick = [&](std::int64_t points) {
        done = std::min(total, done + double(points));
        return !progress || progress(done / total);
    };
    try {
        torch::Tensor e[2];
        {
            torch::NoGradGuard noGrad;
            for (int i = 0; i < 2; ++i) e[i] = f->sentence(in[i].rows)[0].detach();
        }
        out.forwards = 2;
        out.cosine = cosine(e[0].unsqueeze(0), e[1])[0].item<double>();
        for (int i = 0; i < 2; ++i) {
            const auto baseline = out.options.baseline == "pad" ? in[i].padRows : torch::zeros_like(in[i].rows);
            auto side = attributeSide(*f, Side{&in[i], e[1 - i]}, baseline, path, tick, out.forwards);
            if (!side) return Error{side.error()};
            out.sentences[i] = std::move(*side);
            out.sentences[i].text = texts[i];
        }
    } catch (const std::exception& ex) {
        return Error{"model '" + model.path() + "': " + torchErrorLine(ex)};
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

std::string sentenceSimilarityToJson(const SentenceSimilarity& s) {
    nlohmann::json sentences = nlohmann::json::array();
    for (const auto& side : s.sentences)
        sentences.push_back({{"text", side.text},
                             {"tokens", side.pieces},
                             {"attribution", side.values},
                             {"difference", side.difference},
                             {"attribution_sum", side.sum},
                             {"completeness_error", side.completenessError ? nlohmann::json(*side.completenessError) : nlohmann::json()}});
    return nlohmann::json{{"schema", "saccade.similarity"},
                          {"version", 1},
                          {"model", s.model},
                          {"cosine", s.cosine},
                          {"method", "integrated-gradients"},
                          {"steps", s.options.steps},
                          {"quadrature", s.options.quadrature},
                          {"baseline", s.options.baseline},
                          {"sentences", sentences},
                          {"forwards", s.forwards},
                          {"seconds", s.seconds}}
        .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace saccade
