#include "models/seq/seq_batch.h"

#include <algorithm>

#include <torch/torch.h>

namespace saccade {

SeqBatch makeSeqBatch(const SeqTask& task, const std::vector<SeqSample>& samples, const torch::Device& device) {
    const auto B = static_cast<std::int64_t>(samples.size());
    std::int64_t S = 1, T = 0;
    for (const auto& s : samples) {
        S = std::max<std::int64_t>(S, std::int64_t(s.source.size()));
        T = std::max<std::int64_t>(T, std::int64_t(s.target.size()));
    }
    auto source = torch::full({B, S}, kSeqPad, torch::kLong);
    auto lengths = torch::empty({B}, torch::kLong);
    auto input = torch::full({B, T + 1}, kSeqPad, torch::kLong);
    auto output = torch::full({B, T + 1}, kSeqPad, torch::kLong);
    auto mask = torch::zeros({B, T + 1}, torch::kBool);
    auto src = source.accessor<std::int64_t, 2>();
    auto in = input.accessor<std::int64_t, 2>();
    auto out = output.accessor<std::int64_t, 2>();
    auto m = mask.accessor<bool, 2>();
    for (std::int64_t b = 0; b < B; ++b) {
        const auto& s = samples[size_t(b)];
        for (std::size_t i = 0; i < s.source.size(); ++i) src[b][std::int64_t(i)] = task.sourceVocab().id(s.source[i]);
        lengths[b] = std::max<std::int64_t>(1, std::int64_t(s.source.size()));
        in[b][0] = kSeqStart;
        const auto n = std::int64_t(s.target.size());
        for (std::int64_t t = 0; t < n; ++t) {
            const auto id = task.targetVocab().id(s.target[size_t(t)]);
            in[b][t + 1] = id;
            out[b][t] = id;
        }
        out[b][n] = kSeqEnd;
        for (std::int64_t t = 0; t <= n; ++t) m[b][t] = true;
    }
    return {source.to(device), lengths, input.to(device), output.to(device), mask.to(device)};
}

SeqBatch makeSeqSource(const SeqTask& task, const std::vector<std::string>& tokens, const torch::Device& device) {
    SeqSample s;
    s.source = tokens;
    return makeSeqBatch(task, {s}, device);
}

}  // namespace saccade
