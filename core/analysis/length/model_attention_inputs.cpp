#include "analysis/length/model_attention_inputs.h"

#include <algorithm>
#include <map>

#include <torch/torch.h>

#include "attention/qkv_capture.h"
#include "models/model_family.h"

namespace saccade {
namespace {

/// Groups captured layers by name, concatenating their batches; batches padded to different
/// lengths are padded again to the longest (zero rows, masked keys), so no sentence is dropped.
std::vector<FidelitySource> groupLayers(const std::vector<QkvCapture::Layer>& layers, const std::string& prefix) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const QkvCapture::Layer*>> byName;
    for (const auto& l : layers) {
        if (!byName.count(l.name)) order.push_back(l.name);
        byName[l.name].push_back(&l);
    }
    std::vector<FidelitySource> out;
    for (const auto& name : order) {
        std::int64_t n = 0;
        for (const auto* l : byName[name]) n = std::max(n, l->q.size(2));
        const auto pad = [n](const torch::Tensor& x) { return torch::constant_pad_nd(x, {0, 0, 0, n - x.size(2)}, 0); };
        std::vector<torch::Tensor> q, k, v, keep;
        for (const auto* l : byName[name]) {
            q.push_back(pad(l->q));
            k.push_back(pad(l->k));
            v.push_back(pad(l->v));
            const auto kept = l->keep.defined() ? l->keep : torch::ones({l->q.size(0), l->q.size(2)}, torch::kBool);
            keep.push_back(torch::constant_pad_nd(kept, {0, n - kept.size(1)}, 0));
        }
        out.push_back({prefix + " " + name, torch::cat(q).cpu(), torch::cat(k).cpu(), torch::cat(v).cpu(), torch::cat(keep).cpu(),
                       name});
    }
    return out;
}

}  // namespace

Result<std::vector<FidelitySource>> modelFidelitySources(const std::string& path, std::int64_t count, const std::string& need,
                                                         RecordedInputs* inputs) {
    const auto file = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    auto family = familyOfFile(path);
    if (!family) return Error{family.error()};
    if (!(*family)->recordAttentionInputs) return Error{path + " has no self-attention layers (a Transformer or ViT has)"};
    auto recorded = (*family)->recordAttentionInputs(path, count, need);
    if (!recorded) return Error{recorded.error()};
    if (inputs) *inputs = recorded->inputs;
    return groupLayers(recorded->layers, file);
}

}  // namespace saccade
