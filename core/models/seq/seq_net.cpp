#include "models/seq/seq_net.h"

#include <torch/torch.h>

#include "models/seq/seq_network.h"
#include "models/seq/seq_transformer.h"

namespace saccade {

SeqEncoded sourceLengths(const torch::Tensor& source, const torch::Tensor& lengths) {
    TORCH_CHECK(source.dim() == 2 && source.size(1) > 0, "source must be [B, S], got ", source.sizes());
    TORCH_CHECK(lengths.dim() == 1 && lengths.size(0) == source.size(0), "lengths must be [B]");
    const auto S = source.size(1);
    SeqEncoded e;
    e.lengths = lengths.to(torch::kCPU, torch::kLong);
    TORCH_CHECK(e.lengths.min().item<std::int64_t>() >= 1 && e.lengths.max().item<std::int64_t>() <= S,
                "source lengths must be 1..", S);
    const auto len = e.lengths.to(source.device());
    e.mask = torch::arange(S, len.options()).unsqueeze(0) < len.unsqueeze(1);
    return e;
}

std::shared_ptr<SeqNetBase> makeSeqNet(const SeqConfig& config) {
    if (config.transformer()) return std::make_shared<SeqTransformerImpl>(config);
    return std::make_shared<SeqNetworkImpl>(config);
}

}  // namespace saccade
