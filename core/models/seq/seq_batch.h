#pragma once
// Sequence samples to padded id tensors, for training, evaluation and translation alike.
// Engine header: includes LibTorch.

#include <vector>

#include <torch/types.h>

#include "data/seq_task.h"

namespace saccade {

struct SeqBatch {
    torch::Tensor source;        ///< [B, S] int64, kSeqPad after each row's length
    torch::Tensor lengths;       ///< [B] int64 (CPU)
    torch::Tensor input;         ///< [B, T + 1]: <s>, target tokens, <pad>...
    torch::Tensor output;        ///< [B, T + 1]: target tokens, </s>, <pad>...
    torch::Tensor outputMask;    ///< [B, T + 1] bool: true up to and including </s>
};

/// Ids of `samples` under the task's vocabularies, on `device`. Sources of length 0 are refused
/// by the caller (the encoder needs one token).
SeqBatch makeSeqBatch(const SeqTask& task, const std::vector<SeqSample>& samples, const torch::Device& device);

/// One tokenised source [1, S] (unknown tokens as <unk>) and its length.
SeqBatch makeSeqSource(const SeqTask& task, const std::vector<std::string>& tokens, const torch::Device& device);

}  // namespace saccade
