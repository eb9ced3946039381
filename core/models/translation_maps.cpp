#include "models/translation_maps.h"

#include <cmath>
#include <string>

#include <torch/torch.h>

namespace saccade {

std::vector<std::vector<double>> matrixRows(const torch::Tensor& m) {
    const auto c = m.to(torch::kCPU, torch::kDouble).contiguous();
    const auto rows = c.size(0), cols = c.size(1);
    std::vector<std::vector<double>> out(static_cast<std::size_t>(rows), std::vector<double>(static_cast<std::size_t>(cols)));
    const double* p = c.data_ptr<double>();
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t k = 0; k < cols; ++k) out[size_t(r)][size_t(k)] = p[r * cols + k];
    return out;
}

torch::Tensor encoderRollout(const torch::Tensor& encoder) {
    // Rollout (Abnar and Zuidema 2020): per layer (mean over heads + I) / 2, multiplied through.
    const auto enc = encoder.detach().to(torch::kCPU, torch::kDouble).mean(1);  // [L, S, S]
    const auto S = enc.size(1);
    auto rollout = torch::eye(S, enc.options());
    for (std::int64_t l = 0; l < enc.size(0); ++l) rollout = torch::matmul(0.5 * enc[l] + 0.5 * torch::eye(S, enc.options()), rollout);
    return rollout;
}

void addTranslationMaps(SeqTranslation& out, const torch::Tensor& cross, const torch::Tensor& encoder,
                        const torch::Tensor& decoder) {
    const std::pair<const char*, torch::Tensor> kinds[] = {{"cross", cross}, {"encoder", encoder}, {"decoder", decoder}};
    for (const auto& [name, all] : kinds) {
        if (!all.defined()) continue;
        for (std::int64_t l = 0; l < all.size(0); ++l) {
            const std::string layer = std::string(name) + " layer " + std::to_string(l + 1);
            out.maps.push_back({layer + " mean", name, matrixRows(all[l].mean(0))});
            for (std::int64_t h = 0; h < all.size(1); ++h)
                out.maps.push_back({layer + " head " + std::to_string(h + 1), name, matrixRows(all[l][h])});
        }
    }
    if (!encoder.defined()) return;
    const auto rollout = encoderRollout(encoder);
    out.maps.push_back({"encoder rollout", "encoder", matrixRows(rollout)});
    if (!cross.defined()) return;  // a text encoder: no decoder
    const auto lastCross = cross[cross.size(0) - 1].to(torch::kCPU, torch::kDouble).mean(0);
    out.maps.push_back({"cross (last layer) through the encoder rollout", "cross", matrixRows(torch::matmul(lastCross, rollout))});
}

SeqTranslation withAttentionMap(const SeqTranslation& t, std::size_t index) {
    if (index >= t.maps.size()) return t;
    SeqTranslation v = t;
    const auto& m = t.maps[index];
    v.alignment = m.weights;
    if (m.kind == "encoder") {
        v.tokens = t.source;
        v.hasReference = false;
        v.chosen.assign(t.source.size(), -1);
        v.centre.clear();
        v.topWords.assign(t.source.size(), {});  // a source token emits no word
        v.entropy.clear();
        for (const auto& row : m.weights) {
            double h = 0;
            for (double w : row) h -= w > 0 ? w * std::log(w) : 0;
            v.entropy.push_back(h);
        }
    } else if (m.kind == "decoder") {
        v.source = {"<s>"};
        for (std::size_t i = 0; i + 1 < t.tokens.size(); ++i) v.source.push_back(t.tokens[i]);
        v.hasReference = false;
    }
    return v;
}

}  // namespace saccade
