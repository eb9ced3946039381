#pragma once
// A sequence model's translation of one input under one rule: what the decoder emitted and where
// it looked at every step (the alignment), with the task's reference where there is one. Written
// by the sequence models (models/seq), read by the seq-trace JSON, the renderers and the GUI.
// Plain types.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "data/seq_task.h"

namespace saccade {

/// One attention matrix of a Transformer's translation.
struct SeqAttentionMap {
    std::string name;  ///< "cross layer 2 mean", "encoder layer 1 head 3", "encoder rollout", ...
    std::string kind;  ///< "cross" (output x source), "encoder" (source x source), "decoder" (output x its inputs)
    std::vector<std::vector<double>> weights;  ///< rows sum to 1
};

/// One input, one rule, one seed: what the decoder emitted and where it looked.
struct SeqTranslation {
    std::string rule;
    std::uint64_t seed = 1;
    std::vector<std::string> source;     ///< tokens as read (unknown ones as typed)
    std::vector<std::string> unknown;    ///< tokens outside the source vocabulary (read as <unk>)
    std::vector<std::string> tokens;     ///< one per decoder step, "</s>" last when it finished
    bool finished = false;               ///< emitted </s> within the step budget
    std::string output;                  ///< the tokens before </s>, as text
    std::vector<std::vector<double>> alignment;  ///< [steps][source]: each row sums to 1
    std::vector<int> chosen;             ///< per step: the source token a hard rule read, -1 under soft
    std::vector<double> entropy;         ///< per step, nats
    std::vector<double> centre;          ///< local-p: predicted position per step (else empty)
    /// Per step: the 5 likeliest words and their probabilities.
    std::vector<std::vector<std::pair<std::string, double>>> topWords;
    /// The task's own answer for this text, with its gold alignment, or why there is none.
    bool hasReference = false;
    std::string referenceError;
    SeqSample reference;
    /// Transformers: every layer and head of the three attentions, their means over heads, the
    /// encoder's rollout (Abnar and Zuidema 2020) and the last cross-attention through it. Empty
    /// for recurrent models, whose one map is `alignment`.
    std::vector<SeqAttentionMap> maps;
    /// Text encoders: the sentence embedding; empty for a model that writes text. A text encoder's
    /// `tokens` are its source's pieces (each row of its self-attention), `output` is empty.
    std::vector<double> embedding;
    bool correct() const;  ///< output equals the reference
};

}  // namespace saccade
