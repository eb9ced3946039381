#include "analysis/length/model_attention_inputs.h"

#include <algorithm>
#include <map>

#include <torch/torch.h>

#include "attention/qkv_capture.h"
#include "models/model_family.h"

namespace saccade {
namespace {

torch::Tensor padded(const torch::Tensor& x, std::int64_t dim, std::int64_t to) {
    std::vector<std::int64_t> pad(std::size_t(2 * (x.dim() - dim)), 0);
    pad.back() = to - x.size(dim);  // constant_pad_nd's pairs run from the last dimension back
    return torch::constant_pad_nd(x, pad, 0);
}

/// One name's batches as one source: queries padded to the longest query length and keys to the
/// longest key length (zero rows; padded keys masked, and padded queries too where the queries
/// are not the keys' own positions), so no sentence is dropped.
FidelitySource joined(const std::string& name, const std::vector<const QkvCapture::Layer*>& parts, const std::string& prefix) {
    std::int64_t nq = 0, nk = 0;
    for (const auto* l : parts) nq = std::max(nq, l->q.size(2)), nk = std::max(nk, l->k.size(2));
    std::vector<torch::Tensor> q, k, v, keep, queryKeep;
    for (const auto* l : parts) {
        q.push_back(padded(l->q, 2, nq));
        k.push_back(padded(l->k, 2, nk));
        v.push_back(padded(l->v, 2, nk));
        const auto kept = l->keep.defined() ? l->keep : torch::ones({l->k.size(0), l->k.size(2)}, torch::kBool);
        keep.push_back(padded(kept, 1, nk));
        queryKeep.push_back(padded(torch::ones({l->q.size(0), l->q.size(2)}, torch::kBool), 1, nq));
    }
    const auto kind = parts.front()->kind;
    return {prefix + " " + name, torch::cat(q).cpu(), torch::cat(k).cpu(), torch::cat(v).cpu(), torch::cat(keep).cpu(), name,
            kind, kind == QkvKind::Self ? torch::Tensor() : torch::cat(queryKeep).cpu()};
}

/// Groups captured layers by name, in the order they first recorded, concatenating their batches.
std::vector<FidelitySource> groupLayers(const std::vector<QkvCapture::Layer>& layers, const std::string& prefix) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const QkvCapture::Layer*>> byName;
    for (const auto& l : layers) {
        if (!byName.count(l.name)) order.push_back(l.name);
        byName[l.name].push_back(&l);
    }
    std::vector<FidelitySource> out;
    for (const auto& name : order) out.push_back(joined(name, byName[name], prefix));
    return out;
}

}  // namespace

Result<std::vector<FidelitySource>> modelFidelitySources(const std::string& path, const AttentionRecordRequest& request,
                                                         RecordedInputs* inputs) {
    const auto file = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    auto family = familyOfFile(path);
    if (!family) return Error{family.error()};
    if (!(*family)->recordAttentionInputs) return Error{path + " has no self-attention layers (a Transformer or ViT has)"};
    auto recorded = (*family)->recordAttentionInputs(path, request);
    if (!recorded) return Error{recorded.error()};
    if (inputs) *inputs = recorded->inputs;
    return groupLayers(recorded->layers, file);
}

Result<std::vector<FidelitySource>> modelFidelitySources(const std::string& path, std::int64_t count, const std::string& need,
                                                         RecordedInputs* inputs) {
    AttentionRecordRequest request;
    request.count = count;
    request.need = need;
    return modelFidelitySources(path, request, inputs);
}

}  // namespace saccade
