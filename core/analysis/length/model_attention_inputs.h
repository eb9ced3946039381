#pragma once
// The queries, keys and values a Transformer's or ViT's own attention layers use on real inputs,
// for measuring what an efficient attention variant would change in them (analysis/length_fidelity.h):
// the model runs on its own test data under a QkvCapture, one source per layer.
// Engine header: includes LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/length/length_fidelity.h"
#include "common/result.h"
#include "models/model_family.h"

namespace saccade {

/// The attention inputs of a bundled or trained Transformer or ViT checkpoint, one source per
/// layer, as its family records them (ModelFamily::recordAttentionInputs): for a ViT the first
/// `count` test images of its dataset, for a sequence Transformer the first `count` test
/// sentences of its task (the encoder's self-attention). Other kinds of model are an Error that
/// says why; `need` names what the queries and keys are for ("length fidelity recomputes each
/// layer's attention from its queries, keys and values"). `inputs`, where given, receives what the
/// model read.
Result<std::vector<FidelitySource>> modelFidelitySources(
    const std::string& path, std::int64_t count,
    const std::string& need = "length fidelity recomputes each layer's attention from its queries, keys and values",
    RecordedInputs* inputs = nullptr);

/// The same for any request (models/model_family.h: another dataset, the decoder's layers too).
Result<std::vector<FidelitySource>> modelFidelitySources(const std::string& path, const AttentionRecordRequest& request,
                                                         RecordedInputs* inputs = nullptr);

}  // namespace saccade
