#pragma once
// Configuration of the Show-Attend-Tell captioner (plain types, stored in checkpoint sidecars).

#include <string>
#include <vector>

#include "common/result.h"
#include "trace/output_kind.h"

namespace saccade {

struct CaptionConfig {
    int inChannels = 3;
    int imageSize = 64;     ///< square inputs; imageSize / grid must be 1, 2, 4 or 8
    int grid = 8;           ///< g: the encoder yields a g x g grid of annotation vectors (L = g^2)
    int featureDim = 128;   ///< D: per annotation vector
    int embed = 64;         ///< word embedding
    int hidden = 256;       ///< LSTM state
    int attnHidden = 128;   ///< additive scorer width
    /// Longest caption in tokens, <start> and <end> included (the trainer's 0: the dataset's longest).
    int maxLength = 16;
    double dropout = 0.5;   ///< before the deep output layer, in training only
    std::string scorer = "additive";  ///< additive, dot, general, scaled-dot
    /// "wide": a cell's features see about 40 px around it (5 cells at grid 8), so a word can be
    /// read from a cell beside its object. "local": a cell sees 14 px (its own 8 and 3 around), so
    /// naming an object needs attention on it. Checkpoints written before the field existed are "wide".
    std::string encoder = "wide";
    /// A learned vector per cell added to its features, so that a context read from one cell says
    /// where it was (relation words need it once attention is sharp). Older checkpoints: false.
    bool cellPositions = false;
    TrainingMode mode = TrainingMode::Soft;  ///< how it was trained: soft, hard or gumbel
    std::vector<std::string> vocabulary;  ///< token id -> word; 0..3 are <start> <end> <pad> <unk>
};

constexpr int kStartToken = 0, kEndToken = 1, kPadToken = 2, kUnknownToken = 3;

/// Checks sizes and names; the error says which field is wrong.
Result<CaptionConfig> validateCaptionConfig(const CaptionConfig& config);

std::string captionConfigToJson(const CaptionConfig& config);
Result<CaptionConfig> captionConfigFromJson(const std::string& json);

}  // namespace saccade
