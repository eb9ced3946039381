#pragma once
// The attention maps of one translation by a Transformer-like model, Saccade's own or imported:
// every layer and head of the cross-attention and, where given, of the encoder's and decoder's
// self-attention, their means over heads, the encoder's rollout (Abnar and Zuidema 2020) and the
// last cross-attention through it. And a translation seen through one of them. Engine header.

#include <vector>

#include <torch/types.h>

#include "trace/seq_translation.h"

namespace saccade {

/// A 2-D tensor as rows of doubles.
std::vector<std::vector<double>> matrixRows(const torch::Tensor& m);

/// The encoder's rollout (Abnar and Zuidema 2020) of its self-attention [L, H, S, S]: per layer
/// (mean over heads + I) / 2, multiplied through; [S, S] float64 on the CPU. The last
/// cross-attention times it is the cross-attention through the rollout.
torch::Tensor encoderRollout(const torch::Tensor& encoder);

/// Adds to out.maps: `cross` [L, H, T, S] (T output steps, S source tokens); `encoder`
/// [L', H', S, S] and `decoder` [L'', H'', T, T] when defined (they may have other layer and head
/// counts); `cross` undefined for a text encoder. The rollout maps need `encoder`, the last
/// cross-attention through the rollout `cross` too.
void addTranslationMaps(SeqTranslation& out, const torch::Tensor& cross, const torch::Tensor& encoder,
                        const torch::Tensor& decoder);

/// `t` with map `index` of t.maps in place of the alignment, and the row and column labels that
/// map has (encoder maps: source x source, no gold; decoder maps: output x its inputs).
SeqTranslation withAttentionMap(const SeqTranslation& t, std::size_t index);

}  // namespace saccade
