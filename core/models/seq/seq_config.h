#pragma once
// Configuration of a sequence model (plain types, stored in checkpoint sidecars): an
// encoder-decoder with attention over the source, for one sequence task.

#include <string>

#include "common/result.h"

namespace saccade {

struct SeqConfig {
    std::string task = "dates";
    /// "rnn" (the fields below up to `window`) or "transformer" (pre-norm encoder-decoder:
    /// `layers`, `heads`, `dim`, `ff`; scaled dot-product attention, soft only).
    std::string architecture = "rnn";
    std::string cell = "gru";         ///< "gru" or "lstm", encoder and decoder alike
    /// "additive" (Bahdanau), "dot", "general" (Luong global), "scaled-dot", "local-p" (Luong's
    /// predicted position: general scores inside a Gaussian window of half-width `window`).
    std::string scorer = "additive";
    std::string alignment = "soft";   ///< "soft" (expected context) or "hard" (one sampled source token, REINFORCE)
    int embed = 64;
    int encoderHidden = 128;          ///< per direction
    int decoderHidden = 256;          ///< dot and scaled-dot need 2 x encoderHidden
    int attention = 128;              ///< additive scorer and local-p position predictor width
    double window = 2;                ///< local-p: D (the Gaussian's sigma is D / 2)
    int layers = 2, heads = 4, dim = 128, ff = 256;  ///< transformer only
    int sourceVocab = 0, targetVocab = 0;  ///< the task's; checked when a model is opened
    int maxTarget = 0;                ///< decoding steps: the task's longest target + 1 (end token)
    bool transformer() const { return architecture == "transformer"; }
    bool localP() const { return !transformer() && scorer == "local-p"; }
    bool hard() const { return alignment == "hard"; }
    int keyDim() const { return 2 * encoderHidden; }
};

/// Checks every field; the error says which is wrong.
Result<SeqConfig> validateSeqConfig(const SeqConfig& config);

std::string seqConfigToJson(const SeqConfig& config);
Result<SeqConfig> seqConfigFromJson(const std::string& json);

}  // namespace saccade
