#pragma once
// TextEncoderForward: what attribution over a sentence's pieces (analysis/attribution/
// text_similarity.h) asks of a text encoder: the pieces' embedding rows, and the sentence
// embedding from any rows in their place, in a graph autograd can differentiate with respect to
// them. A text encoder hands one out through TextEncoder::encoderForward(). Engine header:
// includes LibTorch.

#include <string>
#include <vector>

#include <torch/types.h>

#include "common/result.h"

namespace saccade {

struct TextEncoderInput {
    std::vector<std::string> pieces;  ///< as the model reads them, its start and end pieces included
    torch::Tensor rows;               ///< [1, S, D] the pieces' embedding rows, no graph
    /// [1, S, D] integrated gradients' start: every row the padding piece's but the first and the
    /// last (the start and end pieces stay); all 0 where the vocabulary has no padding piece.
    torch::Tensor padRows;
    bool hasPad = false;  ///< the vocabulary has a padding piece (padRows are its rows)
};

class TextEncoderForward {
public:
    virtual ~TextEncoderForward() = default;
    /// `text` as pieces and rows. Errors: no pieces, more than kMaxSeqTokens.
    virtual Result<TextEncoderInput> prepare(const std::string& text) = 0;
    /// The sentence embeddings [B, E] of `rows` [B, S, D] (every row of the batch a whole
    /// sentence), in a graph that reaches `rows`. Throws (c10::Error, or the model's own) on failure.
    virtual torch::Tensor sentence(const torch::Tensor& rows) = 0;
};

}  // namespace saccade
